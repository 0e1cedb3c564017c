import type Database from "better-sqlite3";
import type { Statements } from "../ingest/rollups";
import { REQUEST_INSERT, tables } from "../ingest/rows";
import { tierStatements } from "../ingest/tiers";

// The ingest path's prepared statements, once per connection: row inserts and the rollup upserts.

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

export function statements(sqlite: Database.Database): Statements {
  let s = cache.get(sqlite);
  if (s) return s;
  s = {
    inserts: new Map(
      [...Object.values(tables).map((t) => t.sql), REQUEST_INSERT].map((sql) => [sql, sqlite.prepare(sql)]),
    ),
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
    scope1m:
      sqlite.prepare(`INSERT INTO requests_scope_1m (minute, cluster_id, model_id, requests, input_tokens, cached_tokens,
        output_tokens, preemptions) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(minute, cluster_id, model_id) DO UPDATE SET requests = requests + excluded.requests,
        input_tokens = input_tokens + excluded.input_tokens, cached_tokens = cached_tokens + excluded.cached_tokens,
        output_tokens = output_tokens + excluded.output_tokens, preemptions = preemptions + excluded.preemptions`),
    ttftScope1m: sqlite.prepare(
      `INSERT INTO request_ttft_scope_1m (minute, cluster_id, model_id, bucket, n) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(minute, cluster_id, model_id, bucket) DO UPDATE SET n = n + excluded.n`,
    ),
    decisions1m: sqlite.prepare(decisionsRollupSql("route_decisions_1m")),
    decisions15: sqlite.prepare(decisionsRollupSql("route_decisions_15m")),
    tiers: tierStatements(sqlite),
  };
  cache.set(sqlite, s);
  return s;
}
