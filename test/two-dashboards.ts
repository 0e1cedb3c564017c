// Two real dashboard processes on one store (one SQLite file, or one PostgreSQL): both ingest, one leads background
// work. SIGKILL the leader during ingest: the other leads within 15 s (its /api/health says so), every acknowledged
// event is stored and reads back exactly, and a policy published before the kill still reaches the simulator.
import path from "node:path";
import { expect } from "vitest";
import { freePort } from "../lib/free-port";
import { health, ingest, spawnNode, until, type Proc } from "./processes";

export const INGEST_TOKEN = "two-dashboards-ingest-token-0123456789";
export const ADMIN_TOKEN = "two-dashboards-admin-token-0123456789ab";
export const CONTROL_TOKEN = "two-dashboards-control-token-0123456789";
export const DEMO_PASSWORD = "two-dashboards-demo-password";

/** The store both dashboards share: the settings that select it, and how to read back what was acknowledged. */
export type SharedStore = {
  settings: Record<string, string>;
  /** Called once both dashboards have stopped: every acknowledged KV list and request chain must be stored. */
  readBack: (sent: Sent) => Promise<void>;
};

/** The processes started (stopped by the caller's afterAll), and a folder for the simulator's output. */
export type Scenario = { procs: Proc[]; dir: string };

/** What was sent and acknowledged, to check against the store afterwards. */
export type Sent = { kv: Map<string, string[]>; requests: Map<string, string[]> };

/**
 * One body of events for round `n`: KV lists that repeat earlier rounds' hashes (a process stores a repeat as a
 * reference only to a row it wrote itself) and a request that extends the previous round's request with prefix_of
 * (stored by the other process while the two alternate).
 */
function body(n: number, ts: number): { lines: string; kv: [string, string[]][]; request: [string, string[]] } {
  const hash = (i: number) => String(1_000_000 + i);
  const chain = Array.from({ length: 4 * (n + 1) }, (_, i) => hash(i));
  const kv: [string, string[]][] = [
    [`kvs-${n}`, chain.slice(-8)],
    [`kvr-${n}`, chain.slice(0, 4)],
  ];
  const events: Record<string, unknown>[] = [
    { id: kv[0]![0], kind: "kv.stored", ts, worker_id: `w${n % 3}`, block_hashes: kv[0]![1], parent_hash: null },
    { id: kv[1]![0], kind: "kv.removed", ts, worker_id: `w${n % 3}`, block_hashes: kv[1]![1], reason: "capacity" },
    {
      id: `req-${n}`,
      kind: "request",
      ts,
      request_id: `r${n}`,
      session_id: "s1",
      api: "chat_completions",
      model: "llama",
      arrived_at: ts,
      input_tokens: chain.length * 16,
      cached_tokens: 0,
      output_tokens: 10,
      status: "ok",
      ...(n === 0
        ? { sequence_hashes: chain }
        : { prefix_of: { request_id: `r${n - 1}`, blocks: 4 * n }, sequence_hashes: chain.slice(4 * n) }),
    },
  ];
  return { lines: events.map((e) => JSON.stringify(e)).join("\n"), kv, request: [`req-${n}`, chain] };
}

/**
 * The scenario on `store`: a simulator, dashboard A (leads), then B; a session and the sign-in limit shared by both;
 * alternating ingest with a second writer; a policy published through B; A killed with a body in flight.
 */
export async function twoDashboards({ procs, dir }: Scenario, store: SharedStore): Promise<void> {
  const run = (name: "dashboard" | "sim", args: string[], env: Record<string, string>) =>
    spawnNode(procs, name, args, env);
  const dashboard = (port: number, simUrl: string) =>
    run("dashboard", [], {
      NODE_ENV: "production",
      PORT: String(port),
      SWITCHYARD_INGEST_TOKEN: INGEST_TOKEN,
      SWITCHYARD_BOOTSTRAP_API_TOKEN: ADMIN_TOKEN,
      SWITCHYARD_SIM_CONTROL_URL: simUrl,
      SWITCHYARD_SIM_CONTROL_TOKEN: CONTROL_TOKEN,
      // One pass at start, then none for ten minutes: only a leader that starts after the publish can push it.
      SWITCHYARD_RECONCILE_SECONDS: "600",
      SWITCHYARD_DEMO_ADMIN_PASSWORD: DEMO_PASSWORD,
      SWITCHYARD_LOG_LEVEL: "warn",
      ...store.settings,
    });
  const [portA, portB, simPort] = [await freePort(), await freePort(), await freePort()];
  const simUrl = `http://127.0.0.1:${simPort}`;
  const simulator = run(
    "sim",
    [
      "--scenario",
      "steady",
      "--seed",
      "3",
      "--out",
      path.join(dir, "sim.ndjson"),
      "--control-port",
      String(simPort),
      "--control-token",
      CONTROL_TOKEN,
    ],
    {},
  );
  const simPolicies = async () => {
    const res = await fetch(`${simUrl}/control/policies`, {
      headers: { authorization: `Bearer ${CONTROL_TOKEN}` },
      signal: AbortSignal.timeout(2_000),
    });
    return res.ok ? ((await res.json()) as Record<string, { version: number; document: unknown } | undefined>) : null;
  };
  await until("the simulator's control API", 60_000, simPolicies);

  // A first (it creates and migrates the database), then B on the same store.
  const a = dashboard(portA, simUrl);
  const healthA = await until("dashboard A to lead", 120_000, async () => {
    const h = await health(portA, ADMIN_TOKEN);
    return h?.process?.leading ? h : null;
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n${a.output()}`);
  });
  const b = dashboard(portB, simUrl);
  const healthB = await until("dashboard B to answer", 120_000, () => health(portB, ADMIN_TOKEN)).catch(
    (err: Error) => {
      throw new Error(`${err.message}\n${b.output()}`);
    },
  );
  expect(healthA.leader).toMatchObject({ holder: healthA.process!.id, this_process: true });
  expect(healthB.process).toMatchObject({ leading: false });
  expect(healthB.leader).toMatchObject({ holder: healthA.process!.id, this_process: false });
  expect(healthB.process!.id).not.toBe(healthA.process!.id);

  // A session started on A opens B; failed sign-ins on either count toward one limit.
  const login = (port: number, password: string) =>
    fetch(`http://localhost:${port}/api/auth/login`, {
      method: "POST",
      headers: { origin: `http://localhost:${port}`, "content-type": "application/json" },
      body: JSON.stringify({ username: "demo", password }),
    });
  const signedIn = await login(portA, DEMO_PASSWORD);
  expect(signedIn.status).toBe(200);
  const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
  const me = await fetch(`http://localhost:${portB}/api/trpc/users.me`, { headers: { cookie } });
  expect(me.status, await me.clone().text()).toBe(200);
  for (let i = 0; i < 5; i++) expect((await login(i % 2 === 0 ? portA : portB, `wrong ${i}`)).status).toBe(401);
  expect((await login(portB, DEMO_PASSWORD)).status).toBe(429);
  expect((await login(portA, DEMO_PASSWORD)).status).toBe(429);

  // Ingest through both, alternating, one body at a time (each round's request extends the one the other stored).
  const sent: Sent = { kv: new Map(), requests: new Map() };
  let round = 0;
  let killedAt: number | null = null;
  let bLeadsAt: number | null = null;
  // A body without a reply (the leader killed, or 503 while its lock is recovered) is sent again, as a sender does.
  const send = async (port: number) => {
    for (let attempt = 0; attempt < 25; attempt++) {
      const next = body(round, Date.now());
      const acked = await ingest(port, next.lines, INGEST_TOKEN);
      if (acked === null) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      for (const [id, hashes] of next.kv) if (acked.has(id)) sent.kv.set(id, hashes);
      if (acked.has(next.request[0])) sent.requests.set(...next.request);
      round++;
      return acked.has(next.request[0]);
    }
    return false;
  };
  // Beside each round, the other process stores KV lists of its own at the same time: two writers on one file.
  const side = async (port: number, n: number) => {
    const id = `side-${n}`;
    const hashes = Array.from({ length: 8 }, (_, i) => String(5_000_000 + (n % 5) * 4 + i));
    const line = JSON.stringify({
      id,
      kind: "kv.stored",
      ts: Date.now(),
      worker_id: "x1",
      block_hashes: hashes,
      parent_hash: null,
    });
    const acked = (await ingest(port, line, INGEST_TOKEN))?.has(id) ?? false;
    if (acked) sent.kv.set(id, hashes);
    return acked;
  };
  for (let i = 0; i < 20; i++) {
    const [mine, other] = i % 2 === 0 ? [portA, portB] : [portB, portA];
    expect(await Promise.all([send(mine), side(other, i)])).toEqual([true, true]);
  }

  // A policy published through the follower before the kill; the leader's reconciler has already made its one pass.
  const before = (await simPolicies())?.autoscaling?.version ?? null;
  const publish = await fetch(`http://localhost:${portB}/api/trpc/policies.publish`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      json: { kind: "autoscaling", document: { grace_period_seconds: 77 }, baseVersion: null, comment: "before kill" },
    }),
  });
  expect(publish.status, await publish.clone().text()).toBe(200);
  // The simulator still runs its start configuration (version 0): nothing was pushed yet.
  expect(before ?? 0).toBe(0);

  // SIGKILL the leader while a body is on its way to it, then keep ingesting through B and watch B's health.
  const inFlight = ingest(portA, body(round + 1000, Date.now()).lines, INGEST_TOKEN);
  a.child.kill("SIGKILL");
  killedAt = Date.now();
  await a.exited;
  await inFlight;
  while (bLeadsAt === null || Date.now() - killedAt < 20_000) {
    expect(await send(portB)).toBe(true);
    const h = await health(portB, ADMIN_TOKEN);
    if (bLeadsAt === null && h?.process?.leading && h.leader?.this_process) bLeadsAt = Date.now();
    if (Date.now() - killedAt > 30_000) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(bLeadsAt, b.output()).not.toBeNull();
  expect(bLeadsAt! - killedAt).toBeLessThanOrEqual(15_000);
  const after = await health(portB, ADMIN_TOKEN);
  expect(after?.leader).toMatchObject({ holder: healthB.process!.id, this_process: true });

  // The new leader's reconciler pushed the version published before the kill.
  const reached = await until("the policy at the simulator", 30_000, async () => {
    const p = (await simPolicies())?.autoscaling;
    return p && p.version >= 1 ? p : null;
  });
  expect(reached.document).toMatchObject({ grace_period_seconds: 77 });

  // Every acknowledged event is stored, and its hashes read back exactly.
  b.child.kill("SIGTERM");
  expect(await b.exited, b.output()).toBe(0);
  simulator.child.kill("SIGTERM");
  await simulator.exited;
  await store.readBack(sent);
}
