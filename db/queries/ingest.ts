import type Database from "better-sqlite3";
import type { TelemetryEvent } from "../../server/ingest/events";
import { encodeHash, encodeHashes } from "../../server/ingest/chain-codec";
import type { PrefixCode } from "../../server/ingest/prefix";
import { CHAIN_COLUMNS, chainColumns, type ChainColumns } from "./ingest-chains";
import { forgetChains, requestRowExists } from "./chains";
import type { CounterSample } from "../../server/analysis/counters";
import {
  addSample,
  flushStats,
  MinuteRollups,
  noteSeen,
  overlaps,
  type Rollup,
  type Statements,
} from "./ingest-rollups";
import type { Db } from "../client";
import { TierRollups, tierStatements } from "./ingest-tiers";

// The ingest hot path: plain prepared statements in one synchronous transaction per batch.

type Row = (string | number | Buffer | null)[];
type Table = { sql: string; row: (e: never) => Row };

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
const opt = <T>(v: T | undefined) => (v === undefined ? null : v);
const hashesOrNull = (v: readonly string[] | undefined) => (v === undefined ? null : encodeHashes(v));
/** A request's chains stored whole, no base (rowOf; it ignores prefix_of): storeEvents stores them compactly instead. */
const wholeChains = (e: Extract<TelemetryEvent, { kind: "request" }>): ChainColumns => [
  hashesOrNull(e.sequence_hashes),
  hashesOrNull(e.local_hashes),
  null,
  0,
  0,
  e.sequence_hashes?.length ?? null,
  e.local_hashes?.length ?? null,
];

/** A request row's columns before the chain columns. */
const requestHead = (e: Extract<TelemetryEvent, { kind: "request" }>): Row => [
  e.id,
  e.ts,
  e.request_id,
  opt(e.session_id),
  opt(e.trajectory_id),
  opt(e.parent_trajectory_id),
  opt(e.session_type),
  opt(e.harness),
  e.api,
  e.model,
  opt(e.worker_id),
  e.arrived_at,
  opt(e.first_token_at),
  opt(e.finished_at),
  e.input_tokens,
  e.cached_tokens,
  e.output_tokens,
  opt(e.reasoning_tokens),
  opt(e.finish_reason),
  e.status,
  json(e.agent_hints),
  opt(e.block_size),
  json(e.policy_versions),
  opt(e.source),
  opt(e.itl_ms_mean),
  opt(e.itl_ms_p95),
  opt(e.preemptions),
  ...tierColumns(e),
];

function insert(table: string, columns: string[]): string {
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) ON CONFLICT(id) DO NOTHING`;
}

const kvCols = [
  "id",
  "ts",
  "op",
  "worker_id",
  "block_count",
  "block_hashes",
  "parent_hash",
  "local_hashes",
  "retention_class",
  "session_id",
  "reason",
  "source",
  "storage_tier",
  "onboarded_from",
];
const workerEventCols = [
  "id",
  "ts",
  "kind",
  "worker_id",
  "role",
  "model",
  "kv_total_blocks",
  "block_size",
  "reason",
  "source",
];

/** Insert SQL and row mapping per event kind (column order matches). */
export const tables: Record<TelemetryEvent["kind"], Table> = {
  "worker.up": {
    sql: insert("worker_events", workerEventCols),
    row: (e: Extract<TelemetryEvent, { kind: "worker.up" }>) => [
      e.id,
      e.ts,
      e.kind,
      e.worker_id,
      e.role,
      e.model,
      e.kv_total_blocks,
      e.block_size,
      null,
      opt(e.source),
    ],
  },
  "worker.down": {
    sql: insert("worker_events", workerEventCols),
    row: (e: Extract<TelemetryEvent, { kind: "worker.down" }>) => [
      e.id,
      e.ts,
      e.kind,
      e.worker_id,
      null,
      null,
      null,
      null,
      opt(e.reason),
      opt(e.source),
    ],
  },
  "worker.stats": {
    sql: insert("worker_stats", [
      "id",
      "ts",
      "worker_id",
      "kv_active_blocks",
      "kv_total_blocks",
      "requests_running",
      "requests_waiting",
      "prefix_query_tokens",
      "prefix_hit_tokens",
      "preemptions",
      "batch_tokens",
      "source",
    ]),
    row: (e: Extract<TelemetryEvent, { kind: "worker.stats" }>) => [
      e.id,
      e.ts,
      e.worker_id,
      e.kv_active_blocks,
      e.kv_total_blocks,
      e.requests_running,
      e.requests_waiting,
      e.prefix_query_tokens,
      e.prefix_hit_tokens,
      opt(e.preemptions),
      opt(e.batch_tokens),
      opt(e.source),
    ],
  },
  // A kv.stored event's local_hashes are validated but not stored: nothing reads them (attribution takes a turn's
  // local hashes from its request), and they were half of every KV event row.
  "kv.stored": {
    sql: insert("kv_events", kvCols),
    row: (e: Extract<TelemetryEvent, { kind: "kv.stored" }>) => [
      e.id,
      e.ts,
      "stored",
      e.worker_id,
      e.block_hashes.length,
      encodeHashes(e.block_hashes),
      encodeHash(e.parent_hash),
      null,
      opt(e.retention_class),
      opt(e.session_id),
      null,
      opt(e.source),
      opt(e.storage_tier),
      opt(e.onboarded_from),
    ],
  },
  "kv.removed": {
    sql: insert("kv_events", kvCols),
    row: (e: Extract<TelemetryEvent, { kind: "kv.removed" }>) => [
      e.id,
      e.ts,
      "removed",
      e.worker_id,
      e.block_hashes.length,
      encodeHashes(e.block_hashes),
      null,
      null,
      null,
      null,
      e.reason,
      opt(e.source),
      opt(e.storage_tier),
      null,
    ],
  },
  "kv.cleared": {
    sql: insert("kv_events", kvCols),
    row: (e: Extract<TelemetryEvent, { kind: "kv.cleared" }>) => [
      e.id,
      e.ts,
      "cleared",
      e.worker_id,
      0,
      null,
      null,
      null,
      null,
      null,
      "cleared",
      opt(e.source),
      null,
      null,
    ],
  },
  "route.decision": {
    sql: insert("route_decisions", [
      "id",
      "ts",
      "request_id",
      "session_id",
      "trajectory_id",
      "prompt_blocks",
      "chosen_worker_id",
      "chosen_overlap_blocks",
      "best_overlap_blocks",
      "candidate_count",
      "candidates",
      "overlap_credit",
      "prefill_load_scale",
      "temperature",
      "source",
    ]),
    row: (e: Extract<TelemetryEvent, { kind: "route.decision" }>) => {
      const { best, chosen } = overlaps(e);
      return [
        e.id,
        e.ts,
        e.request_id,
        opt(e.session_id),
        opt(e.trajectory_id),
        e.prompt_blocks,
        e.chosen_worker_id,
        chosen,
        best,
        e.candidates.length,
        JSON.stringify(e.candidates),
        e.overlap_credit,
        e.prefill_load_scale,
        e.temperature,
        opt(e.source),
      ];
    },
  },
  request: {
    sql: insert("requests", [
      "id",
      "ts",
      "request_id",
      "session_id",
      "trajectory_id",
      "parent_trajectory_id",
      "session_type",
      "harness",
      "api",
      "model",
      "worker_id",
      "arrived_at",
      "first_token_at",
      "finished_at",
      "input_tokens",
      "cached_tokens",
      "output_tokens",
      "reasoning_tokens",
      "finish_reason",
      "status",
      "agent_hints",
      "block_size",
      "policy_versions",
      "source",
      "itl_ms_mean",
      "itl_ms_p95",
      "preemptions",
      "cached_device_tokens",
      "cached_host_tokens",
      "cached_disk_tokens",
      "cached_shared_tokens",
      "prefetched_tokens",
      ...CHAIN_COLUMNS,
    ]),
    row: (e: Extract<TelemetryEvent, { kind: "request" }>) => [...requestHead(e), ...wholeChains(e)],
  },
  tool: {
    sql: insert("tools", [
      "id",
      "ts",
      "session_id",
      "trajectory_id",
      "request_id",
      "tool_call_id",
      "name",
      "dispatched_at",
      "started_at",
      "ended_at",
      "status",
      "output_bytes",
      "output_tokens",
      "truncated",
      "budget_unit",
      "budget_limit",
      "source",
    ]),
    row: (e: Extract<TelemetryEvent, { kind: "tool" }>) => [
      e.id,
      e.ts,
      e.session_id,
      opt(e.trajectory_id),
      opt(e.request_id),
      e.tool_call_id,
      e.name,
      opt(e.dispatched_at),
      e.started_at,
      opt(e.ended_at),
      e.status,
      opt(e.output_bytes),
      opt(e.output_tokens),
      e.truncated === undefined ? null : e.truncated ? 1 : 0,
      e.budget?.unit ?? null,
      e.budget?.limit ?? null,
      opt(e.source),
    ],
  },
  reasoning: {
    sql: insert("reasoning_spans", [
      "id",
      "ts",
      "request_id",
      "tool_call_id",
      "tokens",
      "started_at",
      "ended_at",
      "source",
    ]),
    row: (e: Extract<TelemetryEvent, { kind: "reasoning" }>) => [
      e.id,
      e.ts,
      e.request_id,
      opt(e.tool_call_id),
      e.tokens,
      e.started_at,
      e.ended_at,
      opt(e.source),
    ],
  },
  "planner.decision": {
    sql: insert("planner_decisions", [
      "id",
      "ts",
      "role",
      "metric",
      "observed",
      "scale_up_threshold",
      "scale_down_threshold",
      "action",
      "replicas_before",
      "replicas_after",
      "reason",
      "source",
    ]),
    row: (e: Extract<TelemetryEvent, { kind: "planner.decision" }>) => [
      e.id,
      e.ts,
      e.role,
      e.metric,
      e.observed,
      e.scale_up_threshold,
      e.scale_down_threshold,
      e.action,
      e.replicas_before,
      e.replicas_after,
      e.reason,
      opt(e.source),
    ],
  },
  "policy.ack": {
    sql: insert("policy_acks", ["id", "ts", "target", "policy_kind", "version", "status", "message", "source"]),
    row: (e: Extract<TelemetryEvent, { kind: "policy.ack" }>) => [
      e.id,
      e.ts,
      e.target,
      e.policy_kind,
      e.version,
      e.status,
      opt(e.message),
      opt(e.source),
    ],
  },
};

/** The per-tier cached tokens and prefetched tokens of a request row (all null when the event split none). */
function tierColumns(e: Extract<TelemetryEvent, { kind: "request" }>): Row {
  const t = e.cached_tokens_by_tier;
  return t === undefined
    ? [null, null, null, null, opt(e.prefetched_tokens)]
    : [t.device ?? 0, t.host ?? 0, t.disk ?? 0, t.shared ?? 0, opt(e.prefetched_tokens)];
}

/** The row an event is stored as, in its table's column order. */
export function rowOf(e: TelemetryEvent): Row {
  return (tables[e.kind].row as (x: TelemetryEvent) => Row)(e);
}

/** Upsert of one worker-stats rollup row into a rollup table (10- or 30-second, 1-, 5- or 15-minute; same columns). */
const statsRollupSql = (
  table: string,
) => `INSERT INTO ${table} (worker_id, minute, samples, kv_active_sum, kv_active_max, kv_total_sum, running_sum, running_max,
        waiting_sum, waiting_max, prefix_query_delta, prefix_hit_delta, counter_resets, utilization_max, preemptions_min, preemptions_max, batch_tokens_sum, batch_samples)
      VALUES (@w, @m, @samples, @kvActiveSum, @kvActiveMax, @kvTotalSum, @runningSum, @runningMax, @waitingSum, @waitingMax, @queryDelta, @hitDelta, @resets, @utilMax,
        @preemptMin, @preemptMax, @batchSum, @batchSamples)
      ON CONFLICT(worker_id, minute) DO UPDATE SET samples = samples + excluded.samples, kv_active_sum = kv_active_sum + excluded.kv_active_sum,
        kv_active_max = max(kv_active_max, excluded.kv_active_max), kv_total_sum = kv_total_sum + excluded.kv_total_sum,
        running_sum = running_sum + excluded.running_sum, running_max = max(running_max, excluded.running_max),
        waiting_sum = waiting_sum + excluded.waiting_sum, waiting_max = max(waiting_max, excluded.waiting_max),
        prefix_query_delta = prefix_query_delta + excluded.prefix_query_delta, prefix_hit_delta = prefix_hit_delta + excluded.prefix_hit_delta,
        counter_resets = counter_resets + excluded.counter_resets, utilization_max = max(utilization_max, excluded.utilization_max),
        preemptions_min = coalesce(min(preemptions_min, excluded.preemptions_min), preemptions_min, excluded.preemptions_min),
        preemptions_max = coalesce(max(preemptions_max, excluded.preemptions_max), preemptions_max, excluded.preemptions_max),
        batch_tokens_sum = batch_tokens_sum + excluded.batch_tokens_sum, batch_samples = batch_samples + excluded.batch_samples`;

/** Upsert of one routing rollup row into a rollup table (1- or 15-minute; same columns). */
const decisionsRollupSql = (
  table: string,
) => `INSERT INTO ${table} (minute, chosen_worker_id, decisions, prompt_blocks, lost_blocks) VALUES (@m, @w, @decisions, @prompt, @lost)
      ON CONFLICT(minute, chosen_worker_id) DO UPDATE SET decisions = decisions + excluded.decisions, prompt_blocks = prompt_blocks + excluded.prompt_blocks,
        lost_blocks = lost_blocks + excluded.lost_blocks`;

const cache = new WeakMap<Database.Database, Statements>();

function statements(sqlite: Database.Database): Statements {
  let s = cache.get(sqlite);
  if (s) return s;
  s = {
    inserts: new Map(Object.values(tables).map((t) => [t.sql, sqlite.prepare(t.sql)])),
    rollup10: sqlite.prepare(statsRollupSql("worker_stats_10s")),
    rollup30: sqlite.prepare(statsRollupSql("worker_stats_30s")),
    rollup: sqlite.prepare(statsRollupSql("worker_stats_1m")),
    rollup5: sqlite.prepare(statsRollupSql("worker_stats_5m")),
    rollup15: sqlite.prepare(statsRollupSql("worker_stats_15m")),
    counterGet: sqlite.prepare(
      "SELECT ts, prefix_query_tokens AS query, prefix_hit_tokens AS hit FROM worker_counters WHERE worker_id = ?",
    ),
    counterPut:
      sqlite.prepare(`INSERT INTO worker_counters (worker_id, ts, prefix_query_tokens, prefix_hit_tokens) VALUES (?, ?, ?, ?)
      ON CONFLICT(worker_id) DO UPDATE SET ts = excluded.ts, prefix_query_tokens = excluded.prefix_query_tokens, prefix_hit_tokens = excluded.prefix_hit_tokens`),
    workerSeen:
      sqlite.prepare(`INSERT INTO workers (worker_id, kv_total_blocks, first_seen, last_seen) VALUES (?, ?, ?, ?)
      ON CONFLICT(worker_id) DO UPDATE SET kv_total_blocks = CASE WHEN excluded.last_seen >= last_seen THEN excluded.kv_total_blocks ELSE kv_total_blocks END,
        first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`),
    workerUp:
      sqlite.prepare(`INSERT INTO workers (worker_id, role, model, block_size, kv_total_blocks, first_seen, last_seen, up_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(worker_id) DO UPDATE SET role = excluded.role, model = excluded.model, block_size = excluded.block_size,
        kv_total_blocks = excluded.kv_total_blocks, first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen),
        up_at = max(coalesce(up_at, 0), excluded.up_at)`),
    workerDown:
      sqlite.prepare(`INSERT INTO workers (worker_id, first_seen, last_seen, down_at, down_reason) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(worker_id) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen),
        down_at = max(coalesce(down_at, 0), excluded.down_at), down_reason = excluded.down_reason`),
    requests1m:
      sqlite.prepare(`INSERT INTO requests_1m (minute, requests, input_tokens, cached_tokens, output_tokens, cached_host_tokens, cached_disk_tokens,
        cached_shared_tokens, prefetched_tokens, preemptions) VALUES (@m, @requests, @input, @cached, @output, @host, @disk, @shared, @prefetched, @preemptions)
      ON CONFLICT(minute) DO UPDATE SET requests = requests + excluded.requests, input_tokens = input_tokens + excluded.input_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens, output_tokens = output_tokens + excluded.output_tokens,
        cached_host_tokens = cached_host_tokens + excluded.cached_host_tokens, cached_disk_tokens = cached_disk_tokens + excluded.cached_disk_tokens,
        cached_shared_tokens = cached_shared_tokens + excluded.cached_shared_tokens, prefetched_tokens = prefetched_tokens + excluded.prefetched_tokens,
        preemptions = preemptions + excluded.preemptions`),
    itl1m: sqlite.prepare(`INSERT INTO request_itl_1m (minute, worker_id, stat, bucket, n) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(minute, worker_id, stat, bucket) DO UPDATE SET n = n + excluded.n`),
    ttft1m: sqlite.prepare(
      `INSERT INTO request_ttft_1m (minute, bucket, n) VALUES (?, ?, ?) ON CONFLICT(minute, bucket) DO UPDATE SET n = n + excluded.n`,
    ),
    decisions1m: sqlite.prepare(decisionsRollupSql("route_decisions_1m")),
    decisions15: sqlite.prepare(decisionsRollupSql("route_decisions_15m")),
    tiers: tierStatements(sqlite),
  };
  cache.set(sqlite, s);
  return s;
}

/** A request whose prefix_of cannot be resolved is refused alone (its code tells the sender what to do). */
export type StoreRejection = { status: "rejected"; code: PrefixCode; error: string };
export type StoreStatus = "accepted" | "duplicate" | StoreRejection;

/** request_id → index of its last request event in the batch (only built when some request names a prefix). */
function requestIndexes(events: readonly TelemetryEvent[]): Map<string, number> | null {
  if (!events.some((e) => e.kind === "request" && e.prefix_of)) return null;
  const m = new Map<string, number>();
  events.forEach((e, i) => e.kind === "request" && m.set(e.request_id, i));
  return m;
}

/**
 * Store validated events in one transaction: raw rows, worker state and per-minute rollups.
 * Returns per event whether it was new, its id was already stored (a duplicate changes nothing), or it was refused
 * (a request whose prefix_of names nothing usable; the rest of the batch is stored).
 */
export function storeEvents(db: Db, events: readonly TelemetryEvent[]): StoreStatus[] {
  const sqlite = db.$client;
  const st = statements(sqlite);
  const positions = requestIndexes(events);
  try {
    return store(db, st, events, positions);
  } catch (err) {
    forgetChains(db);
    throw err;
  }
}

function store(
  db: Db,
  st: Statements,
  events: readonly TelemetryEvent[],
  positions: Map<string, number> | null,
): StoreStatus[] {
  const sqlite = db.$client;
  // IMMEDIATE: take the write lock up front, so concurrent writers wait (busy_timeout) instead of failing an upgrade.
  return sqlite
    .transaction(() => {
      const out: StoreStatus[] = new Array(events.length);
      const rollups = new Map<string, Rollup & { w: string; m: number }>();
      const counters = new Map<string, CounterSample | undefined>();
      const seen = new Map<string, { first: number; last: number; kvTotal: number }>();
      const minutes = new MinuteRollups();
      const tiers = new TierRollups(st.tiers);
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        const t = tables[e.kind];
        let row: Row;
        if (e.kind !== "request") row = rowOf(e);
        else {
          if (requestRowExists(db, e.id)) {
            out[i] = "duplicate";
            continue;
          }
          const chains = chainColumns(db, e, (rid) => (positions?.get(rid) ?? -1) > i);
          if (!chains.ok) {
            out[i] = { status: "rejected", code: chains.code, error: chains.error };
            continue;
          }
          row = [...requestHead(e), ...chains.columns];
        }
        const info = st.inserts.get(t.sql)!.run(row);
        if (info.changes === 0) {
          out[i] = "duplicate";
          continue;
        }
        out[i] = "accepted";
        if (e.kind === "worker.stats") {
          noteSeen(seen, e.worker_id, e.ts, e.kv_total_blocks);
          addSample(rollups, counters, st, e);
        } else if (e.kind === "worker.up") {
          st.workerUp.run(e.worker_id, e.role, e.model, e.block_size, e.kv_total_blocks, e.ts, e.ts, e.ts);
        } else if (e.kind === "worker.down") {
          st.workerDown.run(e.worker_id, e.ts, e.ts, e.ts, opt(e.reason));
        } else if (e.kind === "request") {
          minutes.addRequest(e);
          tiers.addRequest(e);
        } else if (e.kind === "kv.stored" || e.kind === "kv.removed" || e.kind === "kv.cleared") {
          tiers.addKv(e);
        } else if (e.kind === "route.decision") {
          minutes.addDecision(e);
        }
      }
      minutes.flush(st);
      tiers.flush();
      flushStats(rollups, st);
      for (const [w, c] of counters) if (c) st.counterPut.run(w, c.ts, c.query, c.hit);
      for (const [w, s] of seen) st.workerSeen.run(w, s.kvTotal, s.first, s.last);
      return out;
    })
    .immediate();
}
