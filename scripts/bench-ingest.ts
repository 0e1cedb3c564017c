// `npm run bench:ingest`: a realistic event mix posted through the real /api/ingest in batches of 1,000
// from this (separate) process, against raw better-sqlite3 prepared inserts of the same rows, same run.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../db/sqlite/client";
import { rowOf, tables } from "../db/ingest/rows";
import { parseEvent, type TelemetryEvent, type TelemetryEventInput } from "../server/ingest/events";
import { buildAllIfNeeded } from "./build-if-needed.mjs";
import { waitForHealth } from "./wait-for-health";
import { benchEngines, takeEngineOption } from "./bench-ingest-engines";
import { freePort } from "../lib/free-port";
import { median } from "../lib/quantile";
import { nodeArgs } from "../server/compiled";

// Usage: bench-ingest [EVENTS] [FILE.ndjson] [--engine sqlite|postgres|both] [--cpu-prof DIR] — with a file (e.g. a
// simulator --out stream), its first EVENTS lines are the mix; --engine adds each engine's store function over the
// same events; --cpu-prof DIR: the dashboard process writes CPU profiles of its threads there (node --cpu-prof).
const { dir: CPU_PROF, rest: AFTER_PROF } = takeCpuProfOption(process.argv.slice(2));
const { engines: ENGINES, rest: ARGS } = takeEngineOption(AFTER_PROF);
const TOTAL = Number(ARGS[0] ?? 200_000);
const FILE = ARGS[1];
const BATCH = 1_000;
const CONCURRENCY = 2;
const TOKEN = "bench-ingest-token-0123456789abcdef";

/** `--cpu-prof DIR` taken out of the arguments (DIR resolved; null when not given). */
function takeCpuProfOption(argv: readonly string[]): { dir: string | null; rest: string[] } {
  const i = argv.indexOf("--cpu-prof");
  if (i < 0) return { dir: null, rest: [...argv] };
  const dir = argv[i + 1];
  if (!dir || dir.startsWith("--")) throw new Error("--cpu-prof takes a folder for the profiles");
  return { dir: path.resolve(dir), rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
}

/** A deterministic mix shaped like a live cluster's: stats every second, KV churn, routed turns, tools. */
function makeEvents(n: number): TelemetryEventInput[] {
  // The same LCG as before, computed exactly: `seed * 1103515245` in doubles lost precision past 2^53, so the
  // generator cycled after ~10k draws (7,912 distinct hashes in 2M) and the mix repeated hash lists, which gave
  // the compact store's dedup work the raw inserts never do. Math.imul keeps it the 32-bit LCG it meant to be.
  let seed = 42;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  const hash = () => String(BigInt(Math.floor(rnd() * 2 ** 31)) * 4294967296n + BigInt(Math.floor(rnd() * 2 ** 32)));
  const hashes = (k: number) => Array.from({ length: k }, hash);
  const workers = Array.from({ length: 16 }, (_, i) => `w${i}`);
  const out: TelemetryEventInput[] = [];
  const t0 = Date.now() - 3_600_000;
  const counters = workers.map(() => ({ q: 0, h: 0 }));
  for (let i = 0; out.length < n; i++) {
    const ts = t0 + Math.floor(i / 4) * 50;
    const w = i % workers.length;
    const worker_id = workers[w]!;
    const roll = rnd();
    if (roll < 0.4) {
      const c = counters[w]!;
      c.q += 5_000;
      c.h += 3_800;
      out.push({
        id: `st-${i}`,
        kind: "worker.stats",
        ts,
        worker_id,
        kv_active_blocks: 3000 + (i % 4000),
        kv_total_blocks: 8192,
        requests_running: i % 20,
        requests_waiting: i % 3,
        prefix_query_tokens: String(c.q),
        prefix_hit_tokens: String(c.h),
      });
    } else if (roll < 0.6) {
      const b = hashes(16);
      out.push({
        id: `ks-${i}`,
        kind: "kv.stored",
        ts,
        worker_id,
        block_hashes: b,
        parent_hash: hash(),
        local_hashes: hashes(16),
        retention_class: "conversation",
        session_id: `s${i % 500}`,
      });
    } else if (roll < 0.7) {
      out.push({ id: `kr-${i}`, kind: "kv.removed", ts, worker_id, block_hashes: hashes(16), reason: "capacity" });
    } else if (roll < 0.8) {
      const candidates = workers.slice(0, 8).map((c, k) => ({
        worker_id: c,
        overlap_blocks: k * 3,
        prefill_blocks: 60,
        decode_blocks: 10 + k,
        cost: 60 - k * 3 + 10 + k,
      }));
      out.push({
        id: `rd-${i}`,
        kind: "route.decision",
        ts,
        request_id: `r${i}`,
        session_id: `s${i % 500}`,
        prompt_blocks: 60,
        chosen_worker_id: "w3",
        candidates,
        overlap_credit: 1,
        prefill_load_scale: 1,
        temperature: 0,
      });
    } else if (roll < 0.9) {
      out.push({
        id: `rq-${i}`,
        kind: "request",
        ts,
        request_id: `r${i}`,
        session_id: `s${i % 500}`,
        trajectory_id: `t${i % 500}`,
        session_type: "claude_code",
        harness: "claude_code",
        api: "messages",
        model: "demo",
        worker_id,
        arrived_at: ts - 900,
        first_token_at: ts - 700,
        finished_at: ts,
        input_tokens: 3840,
        cached_tokens: 3000,
        output_tokens: 120,
        status: "ok",
        block_size: 64,
        sequence_hashes: hashes(60),
        local_hashes: hashes(60),
        policy_versions: { retention: 1, routing: 1 },
      });
    } else if (roll < 0.97) {
      out.push({
        id: `tl-${i}`,
        kind: "tool",
        ts,
        session_id: `s${i % 500}`,
        request_id: `r${i - 1}`,
        tool_call_id: `tc${i}`,
        name: "Bash",
        started_at: ts - 3000,
        ended_at: ts,
        status: "succeeded",
        output_bytes: 2000,
        output_tokens: 500,
      });
    } else {
      out.push({
        id: `rs-${i}`,
        kind: "reasoning",
        ts,
        request_id: `r${i}`,
        tool_call_id: `tc${i}`,
        tokens: 300,
        started_at: ts - 500,
        ended_at: ts,
      });
    }
  }
  return out;
}

/** NDJSON bodies of up to BATCH events each, split earlier where a body would pass the 8 MiB request limit. */
function toBodies(events: TelemetryEventInput[]): string[] {
  const limit = 8 * 1024 * 1024 - 1024;
  const bodies: string[] = [];
  let lines: string[] = [];
  let size = 0;
  for (const e of events) {
    const line = JSON.stringify(e);
    if (lines.length === BATCH || (lines.length > 0 && size + line.length + 1 > limit)) {
      bodies.push(lines.join("\n"));
      lines = [];
      size = 0;
    }
    lines.push(line);
    size += line.length + 1;
  }
  if (lines.length) bodies.push(lines.join("\n"));
  return bodies;
}

/** The first n events of an NDJSON file. */
function readEvents(file: string, n: number): TelemetryEventInput[] {
  const out: TelemetryEventInput[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (out.length >= n) break;
    if (line.trim()) out.push(JSON.parse(line) as TelemetryEventInput);
  }
  return out;
}

/** CPU seconds a process has used, all its threads (Linux /proc; null elsewhere). */
function processCpu(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return null;
  }
}

/** Events per second over HTTP, and the dashboard's CPU seconds meanwhile (all its threads; null off Linux). */
async function benchHttp(bodies: string[]): Promise<{ rate: number; cpu: number | null }> {
  const PORT = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-"));
  const profile = CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROF] : [];
  const server = spawn(process.execPath, [...profile, ...nodeArgs("dashboard")], {
    env: {
      ...process.env,
      PORT: String(PORT),
      SWITCHYARD_DB: path.join(dir, "http.db"),
      SWITCHYARD_INGEST_TOKEN: TOKEN,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    if (!(await waitForHealth(`http://localhost:${PORT}/api/health`, 60_000)))
      throw new Error("dashboard did not become healthy");
    const post = async (body: string) => {
      const res = await fetch(`http://localhost:${PORT}/api/ingest`, {
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/x-ndjson" },
        body,
      });
      const reply = (await res.json()) as { accepted: number };
      if (!res.ok || reply.accepted !== body.split("\n").length)
        throw new Error(`ingest failed: ${res.status} ${JSON.stringify(reply).slice(0, 300)}`);
    };
    await post(bodies[0]!); // warm-up (compiles the route); not counted
    const queue = bodies.slice(1);
    const cpu0 = processCpu(server.pid!);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let b = queue.shift(); b !== undefined; b = queue.shift()) await post(b);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu1 = processCpu(server.pid!);
    const events = bodies.slice(1).reduce((n, b) => n + b.split("\n").length, 0);
    return { rate: events / seconds, cpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
  } finally {
    // Waited for: the profiles (--cpu-prof) are written as the process exits.
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function benchRaw(events: TelemetryEvent[]): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-raw-"));
  const sqlite = openDb(path.join(dir, "raw.db")).$client;
  const stmts = new Map(Object.values(tables).map((t) => [t.sql, sqlite.prepare(t.sql)]));
  const rows = events.map((e) => [stmts.get(tables[e.kind].sql)!, rowOf(e)] as const);
  const started = performance.now();
  sqlite.transaction(() => {
    for (const [stmt, row] of rows) stmt.run(row);
  })();
  const rate = events.length / ((performance.now() - started) / 1000);
  sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return rate;
}

async function main() {
  await buildAllIfNeeded();
  const inputs = FILE ? readEvents(FILE, TOTAL + BATCH) : makeEvents(TOTAL + BATCH);
  const bodies = toBodies(inputs);
  if (bodies.length < 2) throw new Error(`need more than one batch of events, got ${inputs.length}`);
  const warmup = bodies[0]!.split("\n").length;
  const parsed = inputs.slice(warmup).map((e) => {
    const r = parseEvent(e);
    if (!r.ok) throw new Error(`bench generated an invalid event: ${r.error}`);
    return r.event;
  });
  const mb = bodies.reduce((a, b) => a + b.length, 0) / 1024 / 1024;
  console.log(
    `events: ${inputs.length - warmup} from ${FILE ?? "the built-in mix"} in ${bodies.length - 1} batches of up to ${BATCH} (${mb.toFixed(1)} MiB of NDJSON, ${Math.round((mb * 1048576) / inputs.length)} B/event), concurrency ${CONCURRENCY}`,
  );
  if (ENGINES?.length === 1 && ENGINES[0] === "postgres")
    return benchEngines(ENGINES, parsed, BATCH, CONCURRENCY, bodies);
  // The raw baseline swings a lot on a shared machine (one run alone made the ratio mostly noise): rounds before
  // AND after the http run, their median is the baseline, the spread is printed beside it.
  const raws = [benchRaw(parsed), benchRaw(parsed)];
  const { rate: http, cpu } = await benchHttp(bodies);
  raws.push(benchRaw(parsed), benchRaw(parsed));
  const raw = median(raws)!;
  console.log(`http: ${Math.round(http)} events/s (${((http * mb) / inputs.length).toFixed(1)} MiB/s)`);
  // On a shared machine the steadier figure: the dashboard's CPU (all threads) per event posted.
  if (cpu !== null)
    console.log(
      `dashboard CPU: ${cpu.toFixed(1)} s, ${Math.round(parsed.length / Math.max(0.01, cpu))} events per CPU-second`,
    );
  console.log(
    `raw: ${Math.round(raw)} events/s (median of ${raws.length} rounds, 2 before and 2 after http: ${raws.map((r) => Math.round(r)).join(", ")})`,
  );
  console.log(`ratio: ${(http / raw).toFixed(3)} (target ≥ 0.25)`);
  if (ENGINES) await benchEngines(ENGINES, parsed, BATCH, CONCURRENCY, bodies);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
