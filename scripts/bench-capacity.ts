// `npm run bench:capacity [-- --minutes N] [--workers N] [--keep FILE]` or `[-- --db FILE [--from MS] [--to MS]]`: how
// long the exact capacity curves (per worker and shared) take for one hour of recorded traffic, against a plain pass over
// the same block accesses measured in the same run (the machine may be busy: compare the ratio). The hour is the
// steady scenario recorded by the simulator (5 minutes of warm-up, then N minutes, default 60; `--workers` scales
// the cluster and its sessions together, up to the simulator's 32) and ingested into a fresh SQLite file, or a
// database file given with `--db` (default window: 5 minutes after its first request, for an hour). The window is
// read back as the policy preview reads it (loadWindow). Then the curves of the window's first 2 minutes are checked
// against a brute-force LRU cache simulated at every size asked: "exact: ok", or the first difference and exit 1.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "../db/sqlite/client";
import { insertEvents } from "../db/sqlite/ingest";
import { capacityFor, kneeOf } from "../server/analysis/capacity/answer";
import { bruteForceLru } from "../server/analysis/capacity/lru-oracle";
import { curveOptionsFor, missRatioCurves, type CapacityCurves } from "../server/analysis/capacity/mrc";
import { sampledCurves } from "../server/analysis/capacity/shards";
import { parseEvent, type TelemetryEvent } from "../server/ingest/events";
import { loadWindow } from "../server/preview/load";
import type { RecordedTurn, ReplayInput } from "../server/preview/types";
import { sqliteWindow } from "../server/preview/window-source";
import { Simulation } from "../server/sim/engine";
import { toJsonLine } from "../server/sim/json-lines";
import { scenarioByName } from "../server/sim/scenarios";
import { MODEL_KV_BYTES_PER_TOKEN } from "../server/sim/timing";
import { procStat } from "./thread-cpu";
import { threadRunner } from "../server/preview/thread-runner";
import type { CapacityResult } from "../server/capacity/compute";

const WARMUP_MS = 300_000;
const CHECK_MS = 120_000;
const REPEATS = 3;

type Options = {
  minutes: number;
  workers: number;
  keep: string | null;
  db: string | null;
  from: number | null;
  to: number | null;
};

function optionsOf(argv: readonly string[]): Options {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? (argv[i + 1] ?? null) : null;
  };
  const num = (flag: string, dflt: number | null) => (arg(flag) === null ? dflt : Number(arg(flag)));
  const minutes = num("--minutes", 60)!;
  if (!Number.isFinite(minutes) || minutes <= 2 || minutes > 24 * 60) throw new Error("--minutes takes 2 < N ≤ 1440");
  const workers = num("--workers", 8)!;
  if (!Number.isInteger(workers) || workers < 1 || workers > 32) throw new Error("--workers takes 1–32");
  return { minutes, workers, keep: arg("--keep"), db: arg("--db"), from: num("--from", null), to: num("--to", null) };
}

/** The steady scenario (or it scaled to `workers`, sessions in proportion) recorded into `file`; returns the window. */
function record(file: string, minutes: number, workers: number): { db: Db; from: number; to: number } {
  const steady = scenarioByName("steady")!;
  const scenario =
    workers === 8
      ? steady
      : {
          ...steady,
          workers: { aggregated: workers },
          sessions: () => Math.round((100 * workers) / 8),
          policies: {
            autoscaling: {
              max_gpu_budget: Math.max(16, workers + 2),
              aggregated: { min_replicas: workers, max_replicas: workers },
            },
          },
        };
  const startMs = Math.floor(Date.now() / 60_000) * 60_000 - (minutes * 60_000 + WARMUP_MS) - 3_600_000;
  const from = startMs + WARMUP_MS;
  const to = from + minutes * 60_000;
  const db = openDb(file);
  const sim = new Simulation({ scenario, seed: 1, startMs });
  let batch: TelemetryEvent[] = [];
  sim.setSink((e) => {
    const p = parseEvent(JSON.parse(toJsonLine(e)));
    if (!p.ok) throw new Error(`the simulator sent an invalid event: ${p.error}`);
    batch.push(p.event);
    if (batch.length >= 5_000) {
      insertEvents(db, batch);
      batch = [];
    }
  });
  sim.runUntil(to);
  if (batch.length) insertEvents(db, batch);
  return { db, from, to };
}

/** A file's default window: from 5 minutes after its first request, for an hour (or to its last request). */
function fileWindow(db: Db, o: Options): { from: number; to: number } {
  const r = db.$client.prepare("SELECT min(arrived_at) AS a, max(arrived_at) AS b FROM requests").get() as {
    a: number | null;
    b: number | null;
  };
  if (r.a === null || r.b === null) throw new Error("the database file holds no requests");
  const from = o.from ?? r.a + WARMUP_MS;
  return { from, to: o.to ?? Math.min(from + 3_600_000, r.b + 1) };
}

/** Wall and main-thread CPU seconds of `f` (CPU: Linux only, else null). */
function timed<T>(f: () => T): { value: T; wall: number; cpu: number | null } {
  const cpu = () => procStat(`/proc/self/task/${process.pid}/stat`)?.cpu ?? null;
  const c0 = cpu();
  const t0 = performance.now();
  const value = f();
  const wall = (performance.now() - t0) / 1000;
  const c1 = cpu();
  return { value, wall, cpu: c0 === null || c1 === null ? null : c1 - c0 };
}

/** The same-run yardstick: every block of the warm-up and window turns hashed into a Map once. */
function plainPass(turns: readonly RecordedTurn[]): number {
  const seen = new Map<number, number>();
  let i = 0;
  for (const t of turns) {
    if (t.phase === "after" || !t.blocks) continue;
    const b = t.blocks;
    for (let k = 0; k < b.length; k += 2) seen.set((b[k]! & 0x1fffff) * 4294967296 + b[k + 1]!, i++);
  }
  return seen.size;
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const secs = (t: { wall: number; cpu: number | null }) =>
  `${t.wall.toFixed(2)} s wall${t.cpu === null ? "" : ` (${t.cpu.toFixed(2)} s CPU)`}`;

/**
 * The window's first 2 minutes (the 2 before them as warm-up) against the brute-force LRU at 6 sizes per scope, every
 * size in the same pass as the curves'; throws at the first difference.
 */
function checkExact(input: ReplayInput, maxBlocks: number, workers: number, recorded: number | null): string {
  const cut = input.from + CHECK_MS;
  const turns = input.turns
    .filter((t) => t.arrivedAt >= input.from - CHECK_MS && t.arrivedAt < cut)
    .map((t) => ({ ...t, phase: t.arrivedAt < input.from ? ("warmup" as const) : ("window" as const) }));
  const window = { turns, firstRuns: input.firstRuns };
  const at = [...new Set([0, 64, 2048, recorded ?? maxBlocks / 4, maxBlocks / 2, maxBlocks].map(Math.round))];
  const r = missRatioCurves(window, { maxBlocks, workers, points: 4, at });
  if (r.empty) throw new Error(`exact: the first 2 minutes hold ${r.empty}`);
  let hits = 0;
  for (const [scope, curve, scale] of [
    ["worker", r.perWorker, 1],
    ["shared", r.shared, workers],
  ] as const) {
    for (const w of bruteForceLru(
      window,
      scope,
      at.map((a) => a * scale),
    )) {
      const got = curve.requested.find((p) => p.blocks === w.blocks);
      if (!got || got.hitTokens !== w.hitTokens)
        throw new Error(
          `exact: FAILED (${scope}, ${w.blocks} blocks: ${got?.hitTokens} tokens, brute force ${w.hitTokens})`,
        );
      hits += w.hitTokens;
    }
  }
  // Each worker's own curve against a brute-force LRU over the turns routed to it alone.
  for (const w of r.byWorker) {
    const own = { ...window, turns: turns.filter((t) => t.workerId === w.workerId) };
    for (const b of bruteForceLru(own, "worker", at)) {
      const got = w.curve.requested.find((p) => p.blocks === b.blocks);
      if (!got || got.hitTokens !== b.hitTokens)
        throw new Error(
          `exact: FAILED (worker ${w.workerId}, ${b.blocks} blocks: ${got?.hitTokens} tokens, brute force ${b.hitTokens})`,
        );
    }
  }
  if (hits === 0) throw new Error("exact: FAILED (no size hit at all: nothing was compared)");
  return `exact: ok (first 2 minutes: ${r.turns} turns, per worker, shared and each of ${r.byWorker.length} workers' own curves at ${at.length} sizes each, against a brute-force LRU)`;
}

function summary(c: Extract<CapacityCurves, { empty: null }>, recorded: number | null, measured: number | null): void {
  const at = (points: typeof c.perWorker.points, b: number) => points.find((p) => p.blocks === b);
  if (recorded !== null) {
    const w = at(c.perWorker.points, recorded);
    const s = at(c.shared.points, recorded * c.workers);
    console.log(
      `  at the recorded ${recorded} blocks per worker: ${w ? pct(w.hitRate) : "n/a"} per worker (the recording measured ${measured === null ? "n/a" : pct(measured)}), ${s ? pct(s.hitRate) : "n/a"} with one shared cache of the same KV`,
    );
  }
  const last = c.perWorker.points.at(-1)!;
  console.log(
    `  at ${last.blocks} blocks per worker: ${pct(last.hitRate)} per worker, ${pct(c.shared.points.at(-1)!.hitRate)} shared`,
  );
  const knee = kneeOf(c.perWorker.points, c.blockSize, MODEL_KV_BYTES_PER_TOKEN);
  if (knee)
    console.log(
      `  knee per worker: ${knee.blocks} blocks (${knee.gigabytes.toFixed(1)} GB of KV), ${pct(knee.hitRate)}`,
    );
  const target = Math.floor(last.hitRate * 0.95 * 100) / 100;
  const a = capacityFor(c.perWorker.points, target, c.blockSize, MODEL_KV_BYTES_PER_TOKEN);
  if (a.size)
    console.log(`  ${pct(target)} per worker from ${a.size.blocks} blocks (${a.size.gigabytes.toFixed(1)} GB of KV)`);
  const by = last.byClass;
  const gain = Object.entries(by)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${pct(v / last.hitTokens)}`)
    .join(", ");
  console.log(`  hit tokens by class at ${last.blocks} blocks per worker: ${gain}`);
}

/**
 * What GET /api/capacity runs, as the server runs it: a task on a preview thread that reads the window from the file
 * itself, then computes the exact curves (each worker's own too), a target's answer and the tier grid.
 */
async function apiJob(file: string, from: number, to: number): Promise<void> {
  const runner = threadRunner(file, { memoryMb: 1024 });
  for (const run of ["first (the thread starts)", "second (on the idle thread)"]) {
    const t0 = performance.now();
    const r = (await runner.task!({
      task: "capacity",
      cluster: "default",
      model: null,
      role: null,
      from,
      to,
      capacities: null,
      target: 0.6,
      bytesPerToken: null,
      tierGbps: 25,
      memoryBytes: 768 * 2 ** 20,
    }).done) as CapacityResult;
    const wall = (performance.now() - t0) / 1000;
    const rep = r.report;
    if (rep.empty !== null) throw new Error(`the API job found ${rep.empty}`);
    const e = r.elapsed_ms;
    console.log(
      `API job on a preview thread, ${run}: ${wall.toFixed(2)} s wall${rep.sampling ? " (SAMPLED)" : ", exact"} — window read ${(e.read / 1000).toFixed(2)} s, curves with ${rep.curves.length - 1} workers' own and the target ${(e.curves / 1000).toFixed(2)} s (target ≤ 3 s), ${r.tiers?.cells.length ?? 0}-cell tier grid ${(e.tiers / 1000).toFixed(2)} s`,
    );
  }
}

async function main(): Promise<void> {
  const o = optionsOf(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-capacity-"));
  try {
    console.log(`bench:capacity — ${os.cpus().length} cores; figures depend on what else the machine is doing`);
    let db: Db;
    let from: number;
    let to: number;
    if (o.db) {
      db = openDb(o.db);
      ({ from, to } = fileWindow(db, o));
      console.log(`window: ${new Date(from).toISOString()} + ${((to - from) / 60_000).toFixed(0)} min of ${o.db}`);
    } else {
      const file = o.keep ?? path.join(dir, "steady.db");
      const rec = timed(() => record(file, o.minutes, o.workers));
      ({ db, from, to } = rec.value);
      console.log(
        `steady scenario, ${o.workers} workers, ${o.minutes} simulated min after 5 of warm-up, seed 1: recorded and ingested in ${rec.wall.toFixed(0)} s${o.keep ? ` (kept in ${o.keep})` : ""}`,
      );
    }
    const load = await (async () => {
      const t0 = performance.now();
      const input = await loadWindow(sqliteWindow(db), from, to);
      return { input, wall: (performance.now() - t0) / 1000 };
    })();
    const input = load.input;
    const opts = curveOptionsFor(input);
    const recorded = opts.at?.[0] ?? null;
    const window = input.turns.filter((t) => t.phase === "window");
    const measuredInput = window.reduce((s, t) => s + t.inputTokens, 0);
    const measured = measuredInput > 0 ? window.reduce((s, t) => s + t.cachedTokens, 0) / measuredInput : null;
    console.log(
      `read back in ${load.wall.toFixed(1)} s: ${window.length} turns in the window, ${input.turns.length - window.length} around it; curves to ${opts.maxBlocks} blocks per worker over ${opts.workers} workers`,
    );

    const runs = Array.from({ length: REPEATS }, () => timed(() => missRatioCurves(input, opts)));
    const curves = runs[0]!.value;
    if (curves.empty) throw new Error(`the window holds ${curves.empty}`);
    const best = runs.reduce((a, b) => (b.wall < a.wall ? b : a));
    const plain = Array.from({ length: REPEATS }, () => timed(() => plainPass(input.turns))).reduce((a, b) =>
      b.wall < a.wall ? b : a,
    );
    console.log(
      `exact curves (per worker + shared, ${curves.perWorker.points.length} sizes each): best of ${REPEATS} ${secs(best)}; runs ${runs.map((r) => r.wall.toFixed(2)).join(", ")} s`,
    );
    console.log(
      `  ${curves.turns} turns, ${curves.accesses} block accesses (warm-up included), ${curves.distinctBlocks} distinct blocks; ${((best.wall / curves.accesses) * 1e9).toFixed(0)} ns per access`,
    );
    console.log(
      `baseline (same run): every block hashed into a Map once, ${secs(plain)}; the curves take ${(best.wall / plain.wall).toFixed(2)}× that`,
    );
    summary(curves, recorded, measured);

    const rate = 0.01;
    const shards = timed(() => sampledCurves(input, { ...opts, rate }));
    const s = shards.value;
    if (!s.empty) {
      const worst = (a: typeof curves.perWorker.points, b: typeof curves.perWorker.points) =>
        Math.max(
          0,
          ...a.map((p, i) =>
            p.blocks < s.sampling.reliableFromBlocks ? 0 : Math.abs(p.hitRate - b[i]!.hitRate) * 100,
          ),
        );
      console.log(
        `SHARDS at rate ${rate}: ${secs(shards)}; largest difference from the exact curves from ${s.sampling.reliableFromBlocks} blocks on: ${worst(curves.perWorker.points, s.perWorker.points).toFixed(2)} points per worker (stated ±${s.sampling.errorPoints.perWorker?.toFixed(2) ?? "n/a"}), ${worst(curves.shared.points, s.shared.points).toFixed(2)} shared (stated ±${s.sampling.errorPoints.shared?.toFixed(2) ?? "n/a"})`,
      );
    }
    if (!o.db) await apiJob(o.keep ?? path.join(dir, "steady.db"), from, to);
    const check = timed(() => checkExact(input, opts.maxBlocks, opts.workers, recorded));
    console.log(`${check.value} in ${check.wall.toFixed(1)} s`);
    console.log(`memory: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB resident at the end`);
    db.$client.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
