// Helpers for tests that run real processes (a dashboard, the simulator) and talk to them over HTTP.
import { spawn, type ChildProcess } from "node:child_process";
import { nodeArgs, type CompiledName } from "../server/compiled";
import type { Store } from "../db/store/store";
import { digestHex, hashPassword } from "../server/auth/secrets";

export type Proc = { child: ChildProcess; output: () => string; exited: Promise<number | null> };
export type Health = {
  engine?: "sqlite" | "postgresql";
  database?: string;
  leader: { holder: string; since: number; this_process: boolean } | null;
  process: { id: string; leading: boolean } | null;
};

/** Start compiled process `name` with `args` and env added to this process's; kept in procs so a test can stop them all. */
export function spawnNode(procs: Proc[], name: CompiledName, args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [...nodeArgs(name), ...args], {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += String(d)));
  child.stderr!.on("data", (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const p = { child, output: () => out, exited };
  procs.push(p);
  return p;
}

/** Poll probe (every 100 ms) until it gives a value; throws naming `what` after timeoutMs. */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A dashboard's /api/health body as an API token sees it (its details), or null when it does not answer 200. */
export async function health(port: number, token: string): Promise<Health | null> {
  const res = await fetch(`http://localhost:${port}/api/health`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(2_000),
  });
  return res.ok ? ((await res.json()) as Health) : null;
}

/** POST a body; the ids it acknowledged (accepted or already held), or null without a reply. */
export async function ingest(port: number, lines: string, token: string): Promise<Set<string> | null> {
  try {
    const res = await fetch(`http://localhost:${port}/api/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body: lines,
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) return null;
    const reply = (await res.json()) as { items: { id: string | null; status: string }[] };
    return new Set(reply.items.filter((i) => i.status !== "rejected" && i.id !== null).map((i) => i.id!));
  } catch {
    return null;
  }
}

/** SIGKILL every process still running and wait for all of them to exit (a test's afterAll). */
export async function stopAll(procs: Proc[]): Promise<void> {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
}

/**
 * Accounts a dashboard on PostgreSQL does not create itself yet (its first-start account steps and the users pages
 * run on SQLite only): an admin API token and an admin user (default `demo`) with a password, written straight into
 * the store. Idempotent.
 */
export async function seedAccounts(
  s: Store,
  a: { adminToken: string; demoPassword: string; username?: string },
): Promise<void> {
  const now = Date.now();
  await s.db
    .insert(s.t.apiTokens)
    .values({
      name: "SWITCHYARD_BOOTSTRAP_API_TOKEN",
      scope: "admin",
      digest: digestHex(a.adminToken),
      hint: `…${a.adminToken.slice(-4)}`,
      createdBy: "environment",
      createdAt: now,
    })
    .onConflictDoNothing();
  await s.db
    .insert(s.t.users)
    .values({
      username: a.username ?? "demo",
      role: "admin",
      passwordHash: await hashPassword(a.demoPassword),
      createdAt: now,
    })
    .onConflictDoNothing();
}
