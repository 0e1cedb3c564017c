// `npm run bench:queries [file] [--reuse] [--engine sqlite|postgres|both]`: 24 h of 5-second stats for 64 workers
// (plus 2 routed requests/s and KV churn) in a fresh database file, then p50/p95 of 20 calls of each workers-page
// procedure through createCaller for the 24h preset, then the routing-page and overview procedures. Then the workers-page series for 1 h, 6 h and 24 h
// against Prometheus holding the same samples (when promtool and prometheus are installed; BENCH_PROMETHEUS=0 skips).
// A named file is kept (with its Prometheus blocks beside it); --reuse skips loading them again (SQLite only).
// --engine postgres|both also loads the same events into PostgreSQL (scripts/bench-queries-pg.ts) and times the
// procedures ported to the store there, alternating calls with SQLite's; the others print that they are not ported.
import { spawnSync } from "node:child_process";
import superjson from "superjson";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "../db/client";
import { storeEvents } from "../db/queries/ingest";
import type { TelemetryEvent } from "../server/ingest/events";
import { bucketStep } from "../server/analysis/workers";
import {
  backfill,
  chartQueries,
  OpenMetricsWriter,
  prometheusInstalled,
  promRangeQuery,
  startPrometheus,
  type PromResult,
} from "./bench-prometheus";
import { takeEngineOption, type Engine } from "./bench-ingest-engines";
import { openPgBench } from "./bench-queries-pg";

const WORKERS = Number(process.env.BENCH_WORKERS ?? 64);
const HOURS = Number(process.env.BENCH_HOURS ?? 24);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_SECONDS ?? 5) * 1000;
const PROMETHEUS = process.env.BENCH_PROMETHEUS !== "0";
const { engines, rest: args } = takeEngineOption(process.argv.slice(2));
const ENGINES = engines ?? ["sqlite"];
const REUSE = args.includes("--reuse");
const FILE =
  args.find((a) => !a.startsWith("--")) ?? path.join(os.tmpdir(), `switchyard-bench-queries-${process.pid}.db`);
const KEEP = args.some((a) => !a.startsWith("--"));
const CALLS = 20;
const BATCH_SECONDS = 600;
const CLASSES = ["system_prompt", "tool_definitions", "conversation", "subagent_state"];
const REASONS = ["capacity", "capacity", "capacity", "ttl", "agent_end", "session_end"] as const;

type Ev<K extends TelemetryEvent["kind"]> = Extract<TelemetryEvent, { kind: K }>;

let seed = 7;
/** mulberry32: consecutive draws are independent enough that picks do not correlate. */
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
const hashes = (n: number) =>
  Array.from({ length: n }, () => String(Math.floor(rnd() * 2 ** 31) * 4096 + Math.floor(rnd() * 4096)));

/** Workers 0..n-5 run all day; the last four join after a quarter of the range and leave after three quarters. */
function isUp(w: number, t: number, start: number, span: number): boolean {
  return w < WORKERS - 4 || (t >= start + span / 4 && t < start + (3 * span) / 4);
}

type Sample = (workerId: string, ts: number, kvActive: number, kvTotal: number, query: string, hit: string) => void;

async function load(
  db: Db,
  start: number,
  end: number,
  onSample: Sample,
  onBatch?: (batch: readonly TelemetryEvent[]) => Promise<void>,
) {
  const ids = Array.from({ length: WORKERS }, (_, w) => `worker-${String(w).padStart(2, "0")}`);
  const counters = ids.map(() => ({ q: 0, h: 0 }));
  const baseRate = ids.map((_, w) => 0.45 + (0.5 * ((w * 37) % 64)) / 64);
  const span = end - start;
  let samples = 0;
  for (let b = start; b < end; b += BATCH_SECONDS * 1000) {
    const batch: TelemetryEvent[] = [];
    for (let t = b; t < Math.min(end, b + BATCH_SECONDS * 1000); t += 1000) {
      const upNow = ids.filter((_, w) => isUp(w, t, start, span));
      ids.forEach((id, w) => {
        const wasUp = t > start && isUp(w, t - 1000, start, span);
        const nowUp = isUp(w, t, start, span);
        if (nowUp && !wasUp)
          batch.push({
            id: `${id}-up-${t}`,
            kind: "worker.up",
            ts: t,
            worker_id: id,
            role: w % 4 === 0 ? "prefill" : "decode",
            model: "bench",
            kv_total_blocks: 8192,
            block_size: 16,
          } satisfies Ev<"worker.up">);
        if (!nowUp && wasUp)
          batch.push({
            id: `${id}-down-${t}`,
            kind: "worker.down",
            ts: t,
            worker_id: id,
            reason: "scaled down",
          } satisfies Ev<"worker.down">);
        if (!nowUp || (t - start) % INTERVAL_MS !== 0) return;
        const c = counters[w]!;
        const q = Math.floor(rnd() * 20_000);
        c.q += q;
        c.h += Math.floor(q * Math.min(1, baseRate[w]! + 0.1 * Math.sin((t / 3_600_000) * 2 + w)));
        const util = 0.55 + 0.35 * Math.sin(t / 5_400_000 + w / 3) + 0.05 * rnd();
        const active = Math.floor(8192 * Math.max(0, Math.min(1, util)));
        batch.push({
          id: `${id}-s-${t}`,
          kind: "worker.stats",
          ts: t,
          worker_id: id,
          kv_active_blocks: active,
          kv_total_blocks: 8192,
          requests_running: Math.floor(rnd() * 24),
          requests_waiting: Math.floor(rnd() * 4),
          prefix_query_tokens: String(c.q),
          prefix_hit_tokens: String(c.h),
        } satisfies Ev<"worker.stats">);
        onSample(id, t, active, 8192, String(c.q), String(c.h));
        samples++;
      });
      for (let k = 0; k < 2; k++) {
        const cands = Array.from({ length: 8 }, () => pick(upNow)).filter((x, i, a) => a.indexOf(x) === i);
        const chosen = cands[0]!;
        const rid = `r-${t}-${k}`;
        batch.push({
          id: `rd-${rid}`,
          kind: "route.decision",
          ts: t,
          request_id: rid,
          session_id: `s-${Math.floor(rnd() * 400)}`,
          prompt_blocks: 64,
          chosen_worker_id: chosen,
          candidates: cands.map((worker_id) => ({
            worker_id,
            overlap_blocks: Math.floor(rnd() * 64),
            prefill_blocks: 64,
            decode_blocks: Math.floor(rnd() * 500),
            cost: rnd() * 600,
          })),
          overlap_credit: 1,
          prefill_load_scale: 1,
          temperature: 0,
        } satisfies Ev<"route.decision">);
        batch.push({
          id: `rq-${rid}`,
          kind: "request",
          ts: t,
          request_id: rid,
          api: "messages",
          model: "bench",
          worker_id: chosen,
          arrived_at: t,
          first_token_at: t + 150,
          finished_at: t + 900,
          input_tokens: 40_000,
          cached_tokens: 30_000,
          output_tokens: 300,
          status: "ok",
        } satisfies Ev<"request">);
      }
      const w = pick(upNow);
      batch.push({
        id: `ks-${t}`,
        kind: "kv.stored",
        ts: t,
        worker_id: w,
        block_hashes: hashes(16),
        parent_hash: null,
        retention_class: pick(CLASSES),
      } satisfies Ev<"kv.stored">);
      if (t % 2000 === 0)
        batch.push({
          id: `kr-${t}`,
          kind: "kv.removed",
          ts: t,
          worker_id: pick(upNow),
          block_hashes: hashes(16),
          reason: pick(REASONS),
        } satisfies Ev<"kv.removed">);
    }
    storeEvents(db, batch);
    await onBatch?.(batch);
  }
  return { samples, workers: ids };
}

function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

type Caller = Awaited<ReturnType<(typeof import("../server/trpc/root"))["createCaller"]>>;
type SeriesOut = Awaited<ReturnType<Caller["workers"]["series"]>>;
const RANGES = [
  ["1h", 3_600_000],
  ["6h", 6 * 3_600_000],
  ["24h", 24 * 3_600_000],
] as const;

/** Median |Switchyard − Prometheus| over the points both have (Switchyard's bucket [t, t+step) is Prometheus's point at t+step). */
function agreement(
  s: SeriesOut,
  prom: PromResult,
  pick: (p: SeriesOut["workers"][number]["points"][number]) => number | null,
): { n: number; median: number } {
  const ours = new Map<string, number>();
  for (const w of s.workers)
    for (const p of w.points) {
      const v = pick(p);
      if (v !== null) ours.set(`${w.workerId}@${p.t + s.step}`, v);
    }
  const diffs: number[] = [];
  for (const series of prom.series)
    for (const [t, v] of series.values) {
      const o = ours.get(`${series.metric.worker}@${Math.round(t * 1000)}`);
      if (o !== undefined && Number.isFinite(Number(v))) diffs.push(Math.abs(o - Number(v)));
    }
  diffs.sort((a, b) => a - b);
  return { n: diffs.length, median: diffs.length ? quantile(diffs, 0.5) : NaN };
}

/**
 * The workers-page series against Prometheus per range: calls interleaved (Switchyard, hit-rate query, utilization
 * query) so load from elsewhere on the machine hits all three alike. One Switchyard call draws both charts; each
 * Prometheus query draws one, so the per-chart lines charge the whole call to each chart and "both-charts" compares
 * it with the two queries. First ratio: the procedure call over Prometheus's engine time (stats=all: no HTTP, no JSON);
 * second: the call plus its superjson encoding over Prometheus's HTTP round trip (its JSON encoding included).
 */
async function compareWithPrometheus(caller: Caller, url: string, end: number, engine = "") {
  for (const [preset, span] of RANGES) {
    const step = bucketStep(span);
    const q = chartQueries(step);
    const from = end - span;
    const series = () => caller.workers.series({ range: { preset } });
    // Points on step boundaries, as Grafana aligns them: Prometheus's point at T covers Switchyard's bucket [T − step, T).
    const prom = (query: string) => promRangeQuery(url, query, from - (from % step) + step, end - (end % step), step);
    const first = await series();
    const [hit, kv] = [await prom(q.hitRate), await prom(q.kvUtilization)];
    const a = agreement(first, hit, (p) => p.hitRate);
    const b = agreement(first, kv, (p) => p.util);
    console.log(
      `${engine}${preset}: Switchyard reads ${first.source} in ${step / 1000} s buckets (${first.workers.length} workers); Prometheus ${hit.series.length} series; ` +
        `median |difference| hit rate ${a.median.toFixed(4)} over ${a.n} points, KV utilization ${b.median.toFixed(4)} over ${b.n}`,
    );
    const t = {
      sw: [] as number[],
      wire: [] as number[],
      hit: [] as number[],
      kv: [] as number[],
      both: [] as number[],
      hitWall: [] as number[],
      kvWall: [] as number[],
      bothWall: [] as number[],
    };
    for (let i = 0; i < CALLS; i++) {
      const s0 = performance.now();
      const out = await series();
      const s1 = performance.now();
      superjson.stringify(out);
      t.sw.push(s1 - s0);
      t.wire.push(performance.now() - s0);
      const h = await prom(q.hitRate);
      const k = await prom(q.kvUtilization);
      t.hit.push(h.engineMs);
      t.kv.push(k.engineMs);
      t.both.push(h.engineMs + k.engineMs);
      t.hitWall.push(h.wallMs);
      t.kvWall.push(k.wallMs);
      t.bothWall.push(h.wallMs + k.wallMs);
    }
    for (const xs of Object.values(t)) xs.sort((x, y) => x - y);
    const p = (xs: number[], r: number) => quantile(xs, r);
    const ms = (xs: number[]) => `${p(xs, 0.5).toFixed(1)}/${p(xs, 0.95).toFixed(1)} ms`;
    const ratio = (ours: number[], theirs: number[]) =>
      `${(p(ours, 0.5) / p(theirs, 0.5)).toFixed(2)}x p50 ${(p(ours, 0.95) / p(theirs, 0.95)).toFixed(2)}x p95`;
    const line = (name: string, theirs: number[], wall: number[]) =>
      console.log(
        `vs prometheus: ${engine}${name} ${preset} ${ratio(t.sw, theirs)} (Switchyard series ${ms(t.sw)}, Prometheus engine ${ms(theirs)}); ` +
          `serialized: ${ratio(t.wire, wall)} (Switchyard + superjson ${ms(t.wire)}, Prometheus over HTTP ${ms(wall)})`,
      );
    line("hit-rate", t.hit, t.hitWall);
    line("kv-utilization", t.kv, t.kvWall);
    line("both-charts", t.both, t.bothWall);
  }
}

/** The procedures timed, by name; `store` marks those ported to the store (the ones that run on PostgreSQL). */
function procedures(caller: Caller, one: string) {
  const range = { preset: "24h" } as const;
  const hour = { preset: "1h" } as const;
  return [
    ["workers.list", true, () => caller.workers.list(range)],
    ["workers.series", true, () => caller.workers.series({ range })],
    ["workers.byId", true, () => caller.workers.byId({ id: one, range })],
    ["workers.series (one worker)", true, () => caller.workers.series({ range, workerId: one })],
    ["workers.blocksByClass", true, () => caller.workers.blocksByClass({ id: one, range })],
    ["routing.list", true, () => caller.routing.list({ range })],
    ["routing.series", true, () => caller.routing.series({ range })],
    ["overview.summary", true, () => caller.overview.summary(range)],
    ["overview.trends", true, () => caller.overview.trends(range)],
    ["workers.series 1h", true, () => caller.workers.series({ range: hour })],
    ["workers.series 1h (one worker)", true, () => caller.workers.series({ range: hour, workerId: one })],
  ] as const;
}

const pq = (ms: number[]) => `p50 ${quantile(ms, 0.5).toFixed(1)} ms p95 ${quantile(ms, 0.95).toFixed(1)} ms`;

/** Each procedure on each engine, calls alternating between the engines so load from elsewhere hits both alike. */
async function timeProcedures(callers: { engine: Engine; caller: Caller }[], one: string) {
  const lists = callers.map((c) => procedures(c.caller, one));
  for (let i = 0; i < lists[0]!.length; i++) {
    const [name, ported] = lists[0]![i]!;
    const runs = callers
      .map((c, k) => ({ engine: c.engine, call: lists[k]![i]![2] as () => Promise<unknown>, ms: [] as number[] }))
      .filter((r) => r.engine === "sqlite" || ported);
    for (const r of runs) await r.call();
    for (let n = 0; n < CALLS; n++)
      for (const r of runs) {
        const t = performance.now();
        await r.call();
        r.ms.push(performance.now() - t);
      }
    for (const r of runs) r.ms.sort((a, b) => a - b);
    const cols = runs.map((r) => (callers.length > 1 ? `${r.engine} ${pq(r.ms)}` : pq(r.ms)));
    const sq = runs.find((r) => r.engine === "sqlite");
    const pgRun = runs.find((r) => r.engine === "postgres");
    if (sq && pgRun)
      cols.push(`(postgres/sqlite p95 ${(quantile(pgRun.ms, 0.95) / quantile(sq.ms, 0.95)).toFixed(2)}x)`);
    if (callers.some((c) => c.engine === "postgres") && !ported) cols.push("postgres: not timed (not ported yet)");
    console.log(`${name}: ${cols.join("; ")}`);
  }
}

async function main() {
  const { createCaller } = await import("../server/trpc/root");
  const withPg = ENGINES.includes("postgres");
  if (withPg && REUSE) throw new Error("--reuse keeps a SQLite file only: load afresh with --engine postgres|both");
  const reuse = REUSE && fs.existsSync(FILE);
  const promDir = `${FILE}.prometheus`;
  const tsdbDir = path.join(promDir, "data");
  const withProm = PROMETHEUS && prometheusInstalled();
  if (PROMETHEUS && !withProm)
    console.log("prometheus comparison skipped: promtool/prometheus not found (Debian: apt-get install prometheus)");
  if (!reuse)
    for (const f of [FILE, `${FILE}-wal`, `${FILE}-shm`, promDir]) fs.rmSync(f, { force: true, recursive: true });
  const db = openDb(FILE);
  const pg = withPg ? await openPgBench() : null;
  let end = Math.floor(Date.now() / 60_000) * 60_000;
  let workers: string[];
  try {
    if (reuse) {
      end =
        Math.floor((db.$client.prepare("SELECT max(ts) FROM worker_stats").pluck().get() as number) / 60_000) * 60_000 +
        60_000;
      workers = db.$client.prepare("SELECT worker_id FROM workers ORDER BY worker_id").pluck().all() as string[];
      console.log(`reusing ${FILE}`);
    } else {
      db.$client.pragma("synchronous = OFF");
      const t0 = performance.now();
      const metrics = withProm ? new OpenMetricsWriter(promDir) : null;
      const start = end - HOURS * 3_600_000;
      const loaded = await load(db, start, end, (...a) => metrics?.add(...a), pg?.add);
      workers = loaded.workers;
      db.$client.pragma("wal_checkpoint(TRUNCATE)");
      const mb = fs.statSync(FILE).size / 1e6;
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      console.log(
        `loaded ${loaded.samples.toLocaleString("en-US")} samples (every ${INTERVAL_MS / 1000} s) for ${WORKERS} workers over ${HOURS} h in ${s} s (${mb.toFixed(0)} MB, ${FILE})` +
          (pg ? ", the same events into PostgreSQL alongside" : ""),
      );
      if (pg) {
        const t1 = performance.now();
        const copied = await pg.finish(db, start - 3_600_000, end + 3_600_000);
        console.log(
          `postgres: ${copied.toLocaleString("en-US")} rollup rows copied from SQLite's ingest (PostgreSQL's keeps raw rows only) and analyzed in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
        );
      }
      if (metrics) {
        const t1 = performance.now();
        const om = path.join(promDir, "samples.om");
        metrics.finish(om);
        backfill(om, tsdbDir);
        fs.rmSync(om);
        console.log(
          `backfilled the same samples into Prometheus blocks in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
        );
      }
    }

    const actor = { kind: "user", id: 0, name: "bench", role: "viewer" } as const;
    const callers: { engine: Engine; caller: Caller }[] = [];
    if (ENGINES.includes("sqlite"))
      callers.push({ engine: "sqlite", caller: createCaller({ db, now: () => end, actor }) });
    if (pg)
      callers.push({
        engine: "postgres",
        caller: createCaller({ db: null as unknown as Db, store: pg.store, now: () => end, actor }),
      });
    await timeProcedures(callers, workers[1]!);
    if (withProm) {
      const prom = await startPrometheus(tsdbDir);
      try {
        for (const c of callers)
          await compareWithPrometheus(c.caller, prom.url, end, callers.length > 1 ? `${c.engine} ` : "");
      } finally {
        prom.stop();
      }
    }
  } finally {
    db.$client.close();
    await pg?.close();
  }
  if (!KEEP)
    for (const f of [FILE, `${FILE}-wal`, `${FILE}-shm`, promDir]) fs.rmSync(f, { force: true, recursive: true });
}

// The routers import "server-only", which resolves to a no-op only under the react-server condition.
if (process.execArgv.includes("--conditions=react-server")) void main();
else {
  const res = spawnSync(
    process.execPath,
    [...process.execArgv, "--conditions=react-server", ...process.argv.slice(1)],
    { stdio: "inherit" },
  );
  process.exit(res.status ?? 1);
}
