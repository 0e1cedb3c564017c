import type Database from "better-sqlite3";
import type postgres from "postgres";
import type { IngestRow } from "../rows/ingest";
import type { StoreStatus } from "../rows/ingest";
import type { CounterSample } from "../../lib/counters";
import { addSample, flushStats, MinuteRollups, type Rollup, type Statements } from "../ingest/rollups";
import { TierRollups } from "../ingest/tiers";
import { upsertPlan, upsertRows, type UpsertColumn, type UpsertValue } from "./upsert";
import { chartHorizonPg, chunkOf, repackChartChunksPg, ROLLUP_LOCK } from "./chart-chunks";

// The rollups of PostgreSQL's ingest: SQLite's own per-batch accumulators (db/ingest/rollups.ts,
// ingest-tiers.ts) fed the batch's accepted events in batch order, their rows collected and written with one
// multi-row upsert per table. Same input, same rows as SQLite's ingest writes.

const add = (...names: string[]): UpsertColumn[] => names.map((name) => ({ name }));
const STATS_COLUMNS: UpsertColumn[] = [
  ...add("samples", "kv_active_sum"),
  { name: "kv_active_max", merge: "max" },
  ...add("kv_total_sum", "running_sum"),
  { name: "running_max", merge: "max" },
  ...add("waiting_sum"),
  { name: "waiting_max", merge: "max" },
  ...add("prefix_query_delta", "prefix_hit_delta", "counter_resets"),
  { name: "utilization_max", merge: "max" },
  { name: "preemptions_min", merge: "min" },
  { name: "preemptions_max", merge: "max" },
  ...add("batch_tokens_sum", "batch_samples"),
];
const statsPlan = (table: string) => upsertPlan(table, ["worker_id", "minute"], STATS_COLUMNS);
const DECISION_COLUMNS = add("decisions", "prompt_blocks", "lost_blocks");

const PLANS = {
  rollup10: statsPlan("worker_stats_10s"),
  rollup30: statsPlan("worker_stats_30s"),
  rollup: statsPlan("worker_stats_1m"),
  rollup5: statsPlan("worker_stats_5m"),
  rollup15: statsPlan("worker_stats_15m"),
  requests1m: upsertPlan(
    "requests_1m",
    ["minute"],
    add(
      "requests",
      "input_tokens",
      "cached_tokens",
      "output_tokens",
      "cached_host_tokens",
      "cached_disk_tokens",
      "cached_shared_tokens",
      "prefetched_tokens",
      "preemptions",
    ),
  ),
  ttft1m: upsertPlan("request_ttft_1m", ["minute", "bucket"], add("n")),
  scope1m: upsertPlan(
    "requests_scope_1m",
    ["minute", "cluster_id", "model_id"],
    add("requests", "input_tokens", "cached_tokens", "output_tokens", "preemptions"),
  ),
  ttftScope1m: upsertPlan("request_ttft_scope_1m", ["minute", "cluster_id", "model_id", "bucket"], add("n")),
  itl1m: upsertPlan("request_itl_1m", ["minute", "worker_id", "stat", "bucket"], add("n")),
  decisions1m: upsertPlan("route_decisions_1m", ["minute", "chosen_worker_id"], DECISION_COLUMNS),
  decisions15: upsertPlan("route_decisions_15m", ["minute", "chosen_worker_id"], DECISION_COLUMNS),
  counterPut: upsertPlan(
    "worker_counters",
    ["worker_id"],
    [
      { name: "ts", merge: "set" },
      { name: "prefix_query_tokens", merge: "set" },
      { name: "prefix_hit_tokens", merge: "set" },
    ],
  ),
  kv1m: upsertPlan(
    "kv_tiers_1m",
    ["worker_id", "minute", "tier"],
    [
      ...add("stored_blocks", "removed_blocks", "offloaded_blocks", "onboarded_blocks"),
      { name: "blocks", merge: "set" },
    ],
  ),
  levelPut: upsertPlan(
    "worker_tier_blocks",
    ["worker_id", "tier"],
    [
      { name: "blocks", merge: "set" },
      { name: "ts", merge: "max" },
    ],
  ),
  tierRequests1m: upsertPlan(
    "request_tiers_1m",
    ["worker_id", "minute"],
    add("input_tokens", "device_tokens", "host_tokens", "disk_tokens", "shared_tokens", "prefetched_tokens"),
  ),
};
type PlanKey = keyof typeof PLANS;

type StatsRow = Rollup & { w: string; m: number };
type DecisionRow = { m: number; w: string; decisions: number; prompt: number; lost: number };
type Named = Record<string, UpsertValue>;

/** Each accumulator's bound values (named, or positional as SQLite's statements take them) as the plan's row. */
const ROW: Record<PlanKey, (a: unknown[]) => UpsertValue[]> = {
  rollup10: statsRow,
  rollup30: statsRow,
  rollup: statsRow,
  rollup5: statsRow,
  rollup15: statsRow,
  requests1m: ([r]) => {
    const n = r as Named;
    return [n.m, n.requests, n.input, n.cached, n.output, n.host, n.disk, n.shared, n.prefetched, n.preemptions].map(
      (v) => v ?? null,
    );
  },
  ttft1m: (a) => positional(a, 3),
  scope1m: (a) => positional(a, 8),
  ttftScope1m: (a) => positional(a, 5),
  itl1m: (a) => positional(a, 5),
  decisions1m: decisionRow,
  decisions15: decisionRow,
  counterPut: (a) => positional(a, 4),
  kv1m: ([r]) => {
    const n = r as Named;
    return [n.w, n.m, n.tier, n.stored, n.removed, n.offloaded, n.onboarded, n.blocks].map((v) => v ?? null);
  },
  levelPut: (a) => positional(a, 4),
  tierRequests1m: ([r]) => {
    const n = r as Named;
    return [n.w, n.m, n.input, n.device, n.host, n.disk, n.shared, n.prefetched].map((v) => v ?? null);
  },
};

function statsRow([r]: unknown[]): UpsertValue[] {
  const s = r as StatsRow;
  return [
    s.w,
    s.m,
    s.samples,
    s.kvActiveSum,
    s.kvActiveMax,
    s.kvTotalSum,
    s.runningSum,
    s.runningMax,
    s.waitingSum,
    s.waitingMax,
    s.queryDelta,
    s.hitDelta,
    s.resets,
    s.utilMax,
    s.preemptMin,
    s.preemptMax,
    s.batchSum,
    s.batchSamples,
  ];
}

function decisionRow([r]: unknown[]): UpsertValue[] {
  const d = r as DecisionRow;
  return [d.m, d.w, d.decisions, d.prompt, d.lost];
}

/** SQLite's positional binding: one array argument or the values as arguments. */
function positional(a: unknown[], width: number): UpsertValue[] {
  const v = (a.length === 1 && Array.isArray(a[0]) ? a[0] : a) as UpsertValue[];
  if (v.length !== width) throw new Error(`expected ${width} values, got ${v.length}`);
  return v;
}

/**
 * Statements for the accumulators that collect what SQLite would run instead of running it; `get` answers from what
 * was read before (the last counter sample, the tier block count). Only run/get are called by the accumulators.
 */
class Collected {
  readonly rows = new Map<PlanKey, UpsertValue[][]>();

  constructor(
    private counters: Map<string, CounterSample>,
    private levels: Map<string, number>,
  ) {}

  statements(): Statements {
    const st = (key: PlanKey) => this.collector(key);
    const unused = this.collector(null);
    return {
      inserts: new Map(),
      rollup10: st("rollup10"),
      rollup30: st("rollup30"),
      rollup: st("rollup"),
      rollup5: st("rollup5"),
      rollup15: st("rollup15"),
      counterGet: this.getter((w) => this.counters.get(String(w))),
      counterPut: st("counterPut"),
      workerSeen: unused,
      workerUp: unused,
      workerDown: unused,
      requests1m: st("requests1m"),
      ttft1m: st("ttft1m"),
      scope1m: st("scope1m"),
      ttftScope1m: st("ttftScope1m"),
      itl1m: st("itl1m"),
      decisions1m: st("decisions1m"),
      decisions15: st("decisions15"),
      tiers: {
        levelGet: this.getter((w, tier) => {
          const blocks = this.levels.get(`${String(w)}\u0000${String(tier)}`);
          return blocks === undefined ? undefined : { blocks };
        }),
        levelPut: st("levelPut"),
        kv1m: st("kv1m"),
        requests1m: st("tierRequests1m"),
      },
    };
  }

  private collector(key: PlanKey | null): Database.Statement {
    const run = (...args: unknown[]) => {
      if (key === null) throw new Error("not collected on PostgreSQL");
      let list = this.rows.get(key);
      if (!list) this.rows.set(key, (list = []));
      list.push(ROW[key](args));
      return { changes: 1, lastInsertRowid: 0 };
    };
    return { run } as unknown as Database.Statement;
  }

  private getter(get: (...args: unknown[]) => unknown): Database.Statement {
    return { get } as unknown as Database.Statement;
  }
}

const touchesRollups = (e: IngestRow) =>
  e.kind === "worker.stats" ||
  e.kind === "request" ||
  e.kind === "route.decision" ||
  e.kind === "kv.stored" ||
  e.kind === "kv.removed" ||
  e.kind === "kv.cleared";

/**
 * Add a batch's accepted events to the rollups, in its transaction: the 10 s … 15 min worker rollups (counter deltas
 * against each worker's last sample), requests, TTFT and ITL per minute, routing per 1 and 15 min, and the storage
 * tiers. Takes a transaction-scoped lock first, so concurrent batches (of any process) apply one after another; rows
 * written behind the chart chunks' horizon have their chunks packed again (chart-chunks.ts).
 */
export async function writeRollupsPg(
  tx: postgres.Sql,
  events: readonly IngestRow[],
  out: readonly StoreStatus[],
): Promise<void> {
  const accepted = events.filter((e, i) => out[i] === "accepted" && touchesRollups(e));
  if (accepted.length === 0) return;
  const sampled = new Set<string>();
  const tiered = new Set<string>();
  for (const e of accepted)
    if (e.kind === "worker.stats") sampled.add(e.worker_id);
    else if (e.kind === "kv.stored" || e.kind === "kv.removed" || e.kind === "kv.cleared") tiered.add(e.worker_id);
  await tx.unsafe(`SELECT pg_advisory_xact_lock(${ROLLUP_LOCK})`);
  const [counterRows, levelRows, horizon] = await Promise.all([
    sampled.size
      ? tx<{ w: string; ts: number; query: string; hit: string }[]>`SELECT worker_id AS w, ts,
          prefix_query_tokens AS query, prefix_hit_tokens AS hit FROM worker_counters WHERE worker_id = ANY(${[...sampled]}::text[])`
      : [],
    tiered.size
      ? tx<{ w: string; tier: string; blocks: number }[]>`SELECT worker_id AS w, tier, blocks
          FROM worker_tier_blocks WHERE worker_id = ANY(${[...tiered]}::text[])`
      : [],
    sampled.size ? chartHorizonPg(tx) : 0,
  ]);
  const counters = new Map(counterRows.map((r) => [r.w, { ts: r.ts, query: r.query, hit: r.hit }]));
  const levels = new Map(levelRows.map((r) => [`${r.w}\u0000${r.tier}`, r.blocks]));
  const collected = new Collected(counters, levels);
  const st = collected.statements();
  const rollups = new Map<string, StatsRow>();
  const seenCounters = new Map<string, CounterSample | undefined>();
  const minutes = new MinuteRollups();
  const tiers = new TierRollups(st.tiers);
  for (const e of accepted) {
    if (e.kind === "worker.stats") addSample(rollups, seenCounters, st, e);
    else if (e.kind === "request") {
      minutes.addRequest(e);
      tiers.addRequest(e);
    } else if (e.kind === "route.decision") minutes.addDecision(e);
    else if (e.kind === "kv.stored" || e.kind === "kv.removed" || e.kind === "kv.cleared") tiers.addKv(e);
  }
  minutes.flush(st);
  tiers.flush();
  flushStats(rollups, st);
  for (const [w, c] of seenCounters) if (c) st.counterPut.run(w, c.ts, c.query, c.hit);
  await Promise.all([...collected.rows].map(([key, rows]) => upsertRows(tx, PLANS[key], rows)));
  // Rollup rows behind the chart chunks' horizon (a late or replayed sample): their chunks are packed again.
  const late = new Map<number, Set<string>>();
  for (const [w, m] of collected.rows.get("rollup30") ?? []) {
    if ((m as number) >= horizon) continue;
    const chunk = chunkOf(m as number);
    let workers = late.get(chunk);
    if (!workers) late.set(chunk, (workers = new Set()));
    workers.add(w as string);
  }
  if (late.size) await repackChartChunksPg(tx, late);
}
