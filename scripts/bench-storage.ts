// `npm run bench:storage [-- --minutes N]`: the steady scenario generated at full speed by the simulator, posted
// through the real /api/ingest of a real dashboard process into a fresh database, then attribution to completion.
// Prints storage per simulated hour and per request, ingest rate and attribution speed, each beside a baseline
// measured in the same run (the machine may be busy: compare the ratios).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import Database from "better-sqlite3";
import { openDb } from "../db/client";
import { runAttribution } from "../server/jobs/attribution";
import { buildIfNeeded } from "./build-if-needed";
import { waitForHealth } from "./wait-for-health";

const TOKEN = "bench-storage-token-0123456789abcdef";
const BATCH = 1_000;
const BODY_LIMIT = 8 * 1024 * 1024 - 1024;
const CONCURRENCY = 2;
const MiB = 1024 * 1024;

function minutesArg(argv: readonly string[]): number {
  const i = argv.indexOf("--minutes");
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith("--minutes="))?.slice(10);
  const n = raw === undefined ? 60 : Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 24 * 60)
    throw new Error("--minutes takes a number of simulated minutes (0 < N ≤ 1440)");
  return n;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

function exited(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

/** The simulator's NDJSON for the steady scenario, at full speed. */
async function simulate(file: string, seconds: number): Promise<void> {
  const start = String(Math.floor(Date.now() / 60_000) * 60_000 - seconds * 1000 - 60_000);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "server/sim/cli.ts",
      "--scenario",
      "steady",
      "--seed",
      "1",
      "--fast",
      "--duration",
      String(seconds),
      "--start",
      start,
      "--out",
      file,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  if ((await exited(child)) !== 0) throw new Error("the simulator failed");
}

/** NDJSON bodies of up to BATCH lines (and under the request size limit), streamed from the file. */
async function* bodies(file: string): AsyncGenerator<string[]> {
  let lines: string[] = [];
  let size = 0;
  for await (const line of readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })) {
    if (!line) continue;
    if (lines.length === BATCH || (lines.length > 0 && size + line.length + 1 > BODY_LIMIT)) {
      yield lines;
      lines = [];
      size = 0;
    }
    lines.push(line);
    size += line.length + 1;
  }
  if (lines.length) yield lines;
}

type Reply = {
  accepted: number;
  duplicate: number;
  rejected: number;
  items: { status: string; error?: string; code?: string }[];
};

/** Post every line of the file; lines refused as unknown_prefix (their prefix was in a batch still in flight) go again at the end. */
async function ingest(url: string, file: string): Promise<{ events: number; bytes: number; seconds: number }> {
  const post = async (lines: string[]): Promise<string[]> => {
    const res = await fetch(`${url}/api/ingest`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/x-ndjson" },
      body: lines.join("\n"),
    });
    const reply = (await res.json()) as Reply;
    if (!res.ok) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(reply).slice(0, 300)}`);
    const retry: string[] = [];
    reply.items.forEach((it, i) => {
      if (it.status !== "rejected") return;
      if (JSON.stringify(it).includes("unknown_prefix")) retry.push(lines[i]!);
      else throw new Error(`event rejected: ${JSON.stringify(it).slice(0, 300)}`);
    });
    return retry;
  };
  let events = 0;
  let bytes = 0;
  const retry: string[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  for await (const lines of bodies(file)) {
    events += lines.length;
    bytes += lines.reduce((n, l) => n + l.length + 1, 0);
    const p: Promise<void> = post(lines)
      .then((r) => void retry.push(...r))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  for (let i = 0; i < retry.length; i += BATCH) {
    const left = await post(retry.slice(i, i + BATCH));
    if (left.length) throw new Error(`${left.length} events still refused as unknown_prefix`);
  }
  return { events, bytes, seconds: (performance.now() - started) / 1000 };
}

/** Poll the database until the attribution job has judged every request and applied every KV event. */
async function attributed(dbFile: string, timeoutMs: number): Promise<boolean> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const end = Date.now() + timeoutMs;
    const q = db
      .prepare(
        `SELECT (SELECT coalesce(max(rowid), 0) FROM requests) <= coalesce((SELECT value FROM attr_state WHERE key = 'requests'), 0)
          AND (SELECT coalesce(max(rowid), 0) FROM kv_events) <= coalesce((SELECT value FROM attr_state WHERE key = 'kv'), 0)`,
      )
      .pluck();
    while (Date.now() < end) {
      if (q.get() === 1) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  } finally {
    db.close();
  }
}

/** Baseline: the same NDJSON lines inserted raw (one blob row each, 1,000 per transaction) with better-sqlite3. */
async function rawInsertRate(file: string, dir: string): Promise<number> {
  const db = new Database(path.join(dir, "raw.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE raw (id INTEGER PRIMARY KEY, line BLOB NOT NULL)");
  const ins = db.prepare("INSERT INTO raw (line) VALUES (?)");
  const tx = db.transaction((lines: string[]) => {
    for (const l of lines) ins.run(Buffer.from(l));
  });
  let events = 0;
  let spent = 0;
  for await (const lines of bodies(file)) {
    const t = performance.now();
    tx(lines);
    spent += performance.now() - t;
    events += lines.length;
  }
  db.close();
  return events / (spent / 1000);
}

/** Attribution alone on a copy of the database (index and causes cleared), with a raw read of its input as the baseline. */
function attributionAlone(dbFile: string, dir: string): { seconds: number; rawReadSeconds: number; chainMiB: number } {
  const copy = path.join(dir, "attr.db");
  fs.copyFileSync(dbFile, copy);
  const db = openDb(copy);
  db.$client.exec(
    "DELETE FROM attr_blocks; DELETE FROM attr_names; DELETE FROM attr_clears; DELETE FROM attr_lists; DELETE FROM attr_local; DELETE FROM attr_state; DELETE FROM request_causes; DELETE FROM causes_1m; DELETE FROM session_summaries",
  );
  db.$client.pragma("synchronous = NORMAL");
  let t = performance.now();
  let chars = 0;
  for (const r of db.$client.prepare("SELECT block_hashes AS h FROM kv_events").iterate() as Iterable<{
    h: string | null;
  }>)
    chars += r.h?.length ?? 0;
  for (const r of db.$client
    .prepare("SELECT sequence_hashes AS s, local_hashes AS l FROM requests")
    .iterate() as Iterable<{ s: unknown; l: unknown }>)
    chars += String(r.s ?? "").length + String(r.l ?? "").length;
  const rawReadSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const run = runAttribution(db);
  const seconds = (performance.now() - t) / 1000;
  if (!run.caughtUp) throw new Error("attribution did not finish");
  db.$client.close();
  fs.rmSync(copy, { force: true });
  return { seconds, rawReadSeconds, chainMiB: chars / MiB };
}

async function main() {
  const minutes = minutesArg(process.argv.slice(2));
  const simSeconds = Math.round(minutes * 60);
  buildIfNeeded();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-storage-"));
  const simFile = path.join(dir, "steady.ndjson");
  const dbFile = path.join(dir, "switchyard.db");
  let server: ChildProcess | null = null;
  try {
    await simulate(simFile, simSeconds);
    const port = await freePort();
    server = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: {
        ...process.env,
        PORT: String(port),
        SWITCHYARD_DB: dbFile,
        SWITCHYARD_INGEST_TOKEN: TOKEN,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const url = `http://localhost:${port}`;
    if (!(await waitForHealth(`${url}/api/health`, 120_000))) throw new Error("dashboard did not become healthy");
    const started = performance.now();
    const ing = await ingest(url, simFile);
    const afterIngest = performance.now();
    if (!(await attributed(dbFile, 30 * 60_000))) throw new Error("attribution did not catch up within 30 minutes");
    const liveSeconds = (performance.now() - started) / 1000;
    const tailSeconds = (performance.now() - afterIngest) / 1000;
    server.kill("SIGTERM");
    await exited(server);
    server = null;

    const db = new Database(dbFile);
    db.pragma("wal_checkpoint(TRUNCATE)");
    const requests = db.prepare("SELECT count(*) FROM requests").pluck().get() as number;
    let tables: { name: string; bytes: number }[] = [];
    try {
      tables = db
        .prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 8")
        .all() as typeof tables;
    } catch {}
    db.close();
    const dbBytes = fs.statSync(dbFile).size + (fs.existsSync(`${dbFile}-wal`) ? fs.statSync(`${dbFile}-wal`).size : 0);
    const ndjsonBytes = fs.statSync(simFile).size;

    const alone = attributionAlone(dbFile, dir);
    const raw = await rawInsertRate(simFile, dir);
    const hours = simSeconds / 3600;
    const rate = ing.events / ing.seconds;
    console.log(
      `scenario: steady, ${minutes} simulated min, ${ing.events} events, ${requests} requests, ${(ndjsonBytes / MiB).toFixed(1)} MiB of NDJSON`,
    );
    console.log(
      `db: ${(dbBytes / 1e6 / hours).toFixed(1)} MB per simulated hour (${(dbBytes / 1e6).toFixed(1)} MB; baseline NDJSON ${(ndjsonBytes / 1e6 / hours).toFixed(1)} MB per hour, ratio ${(dbBytes / ndjsonBytes).toFixed(3)})`,
    );
    console.log(`per request: ${Math.round(dbBytes / Math.max(1, requests))} bytes`);
    console.log(
      `ingest: ${Math.round(rate)} events/s (${(ing.bytes / MiB / ing.seconds).toFixed(1)} MiB/s); baseline raw inserts ${Math.round(raw)} events/s, ratio ${(rate / raw).toFixed(3)}`,
    );
    console.log(
      `attribution: ${(simSeconds / alone.seconds).toFixed(0)} x real time (alone, ${alone.seconds.toFixed(1)} s; baseline: reading its input, ${alone.chainMiB.toFixed(0)} MiB of chains, ${alone.rawReadSeconds.toFixed(1)} s; ratio ${(alone.seconds / Math.max(0.001, alone.rawReadSeconds)).toFixed(1)})`,
    );
    console.log(
      `attribution in the dashboard's worker: caught up ${tailSeconds.toFixed(1)} s after ingest ended; ${(simSeconds / liveSeconds).toFixed(0)} x real time from the first post`,
    );
    if (tables.length)
      console.log(`largest: ${tables.map((t) => `${t.name} ${(t.bytes / 1e6).toFixed(1)} MB`).join(", ")}`);
  } finally {
    if (server) {
      server.kill("SIGTERM");
      await exited(server);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
