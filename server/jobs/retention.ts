import type { Db } from "../../db/sqlite/client";
import type { PgDb } from "../../db/pg/client";
import { dropPartitionsBefore, PARTITIONED } from "../../db/pg/partitions";
import { deleteBatchBeforePg, existingTables } from "../../db/pg/retention";
import { trimChartChunksPg } from "../../db/pg/chart-chunks";
import { deleteBatchBefore, RETENTION_TABLES, type RetentionTier } from "../../db/sqlite/retention";
import { errorMessage, log } from "../observability/logger";

/** Days kept for rollups and session summaries (long-range views read these after the detail aged out). */
export const SUMMARY_RETENTION_DAYS = 400;
const DAY_MS = 86_400_000;

/** The oldest raw timestamp (Unix ms) to keep at `now` for a retention of `hours`. */
export function retentionCutoff(now: number, hours: number): number {
  return now - Math.round(hours * 3_600_000);
}

export type RetentionSettings = { rawHours: number; days: number };

/** The cutoff (Unix ms) of each tier at `now`: rows with an earlier time are deleted. */
export function tierCutoffs(now: number, s: RetentionSettings): Record<RetentionTier, number> {
  return {
    raw: retentionCutoff(now, s.rawHours),
    detail: now - Math.round(s.days * DAY_MS),
    summary: now - SUMMARY_RETENTION_DAYS * DAY_MS,
  };
}

export type SweepResult = { deleted: Record<string, number>; transactions: number };

/** Rows per delete statement: a few milliseconds of the write lock even for wide request rows. */
export const SWEEP_BATCH = 500;

/**
 * Delete everything older than its tier's cutoff, table by table, in statements of at most `batch` rows by the
 * indexed time column, yielding (`pause`) between statements so ingest and the UI go on in between.
 */
export async function sweepRetention(
  db: Db,
  cutoffs: Record<RetentionTier, number>,
  batch = SWEEP_BATCH,
  pause: () => Promise<void> = () => new Promise((r) => setImmediate(r)),
): Promise<SweepResult> {
  const deleted: Record<string, number> = {};
  let transactions = 0;
  for (const { table, column, tier } of RETENTION_TABLES) {
    let total = 0;
    for (;;) {
      const n = deleteBatchBefore(db, table, column, cutoffs[tier], batch);
      transactions++;
      total += n;
      if (n < batch) break;
      await pause();
    }
    deleted[table] = total;
  }
  return { deleted, transactions };
}

/**
 * Retention on PostgreSQL: the partitioned event tables drop every whole day before their tier's cutoff (a day
 * straddling it is kept, so rows stay up to a day longer than on SQLite); the other tables delete rows as on SQLite,
 * `batch` to a statement with `pause` between. Tables PostgreSQL does not have are skipped. `deleted` counts rows for
 * the row-deleted tables and dropped partitions under `partitions`.
 */
export async function sweepRetentionPg(
  pg: PgDb,
  cutoffs: Record<RetentionTier, number>,
  batch = SWEEP_BATCH,
  pause: () => Promise<void> = () => new Promise((r) => setImmediate(r)),
): Promise<SweepResult> {
  const dropped = await dropPartitionsBefore(pg.$client, { raw: cutoffs.raw, detail: cutoffs.detail });
  const deleted: Record<string, number> = { partitions: dropped.length };
  let transactions = dropped.length;
  const rowTables = RETENTION_TABLES.filter((t) => !(t.table in PARTITIONED));
  const present = await existingTables(pg.$client, [...rowTables.map((t) => t.table), "worker_chart_30s"]);
  for (const { table, column, tier, bucketMs } of rowTables) {
    if (!present.has(table)) continue;
    const before = bucketMs ? cutoffs[tier] - bucketMs + 1 : cutoffs[tier];
    let total = 0;
    for (;;) {
      const n = await deleteBatchBeforePg(pg.$client, table, column, before, batch);
      transactions++;
      total += n;
      if (n < batch) break;
      await pause();
    }
    deleted[table] = total;
    // The chart chunks packed from the 30-second rollup go with its rows (a chunk the cut splits is packed again).
    if (table === "worker_stats_30s" && present.has("worker_chart_30s")) {
      deleted.worker_chart_30s = await trimChartChunksPg(pg.$client, before);
      transactions++;
    }
  }
  return { deleted, transactions };
}

/** One sweep of every tier at the cutoffs given, on whichever engine: the counts by table. */
export type RetentionSweep = (cutoffs: Record<RetentionTier, number>) => Promise<SweepResult>;

/** The sweep over a SQLite file, or over PostgreSQL when `pg` is given. */
export function retentionSweep(db: Db | null, pg: PgDb | null): RetentionSweep {
  return pg ? (cutoffs) => sweepRetentionPg(pg, cutoffs) : (cutoffs) => sweepRetention(db!, cutoffs);
}

/** Sweep every tier now and then every intervalSeconds (one sweep at a time); returns a stop function. */
export function startRetentionSweeper(
  sweepOnce: RetentionSweep,
  settings: RetentionSettings,
  intervalSeconds: number,
  now: () => number = Date.now,
): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const { deleted } = await sweepOnce(tierCutoffs(now(), settings));
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      if (total > 0) log().info({ deleted }, "retention: deleted rows and partitions past their retention");
    } catch (err) {
      log().error({ err: errorMessage(err) }, "retention sweep failed");
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
