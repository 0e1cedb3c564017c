import type postgres from "postgres";
import { HALF_MINUTE } from "../ingest/rollups";
import { pgTransaction } from "./client";

// PostgreSQL's packed chart chunks (worker_chart_30s): the 30-second rollup's bucket starts and chart ratios, one row
// per worker and 5-minute chunk, for every chunk before the sealed horizon (worker_chart_seal). The hour's chart then
// reads about 12 packed rows a worker plus the rollup's rows past the horizon, instead of 120 rows a worker: on
// PostgreSQL the per-row work of scanning and aggregating was most of that query (SQLite, whose rows cost it far less,
// reads its rollup as it is). A chunk holds exactly what its rollup rows hold: the leader packs chunks once
// complete (sealChartChunksPg), an ingest batch that writes rollup rows behind the horizon packs those chunks again
// in its own transaction (repackChartChunksPg), and retention trims them with the rows. All three, and every rollup
// write, take ROLLUP_LOCK, so a horizon read under it is the one every packed chunk agrees with.
//
// A chunk's `t` says which of its ten buckets have rows in 10 bytes: its start as a negative int8 (−start − 1), then a
// bitmap of those buckets as an int2 (bit i: the bucket at start + i × 30 s); its ratios follow in bucket order.
// Chunks packed before held each bucket's start as an int8 (80 bytes for ten); a read takes both forms
// (db/store/worker-columns.ts, placedRow), since a positive int8 is read as one bucket's start either way. A single
// chart's hour reply is then about 40 % smaller: larger, it filled what the server's socket takes before the client
// reads, and the backend, blocked there, was sometimes woken tens of milliseconds late (docs/benchmarks.md).

/**
 * One transaction at a time computes and writes rollups or chart chunks (every process): counter deltas and tier levels
 * read the last rows written, and a horizon read under it is the one every packed chunk agrees with.
 */
export const ROLLUP_LOCK = "hashtext('switchyard.ingest-rollups')";
/** The span of one chart chunk (ms): 10 buckets of the 30-second rollup. */
export const CHART_CHUNK_MS = 300_000;
/** The rollup the chunks pack, as worker_chart_seal names it, and its bucket (ms). */
export const CHART_RESOLUTION = "30s";
export const CHART_BUCKET_MS = HALF_MINUTE;

/** The start of the chunk holding `ms`. */
export const chunkOf = (ms: number) => ms - (ms % CHART_CHUNK_MS);

/**
 * Per-row ratio bytes: num / den as a big-endian double, NaN unless den > 0 (the same IEEE division as JS's). The chart
 * read's ratioBytes (db/store/worker-columns.ts) writes the same expression over drizzle's columns for the rows past
 * the horizon; chart-seal.pg.test.ts fails if the two ever differ (chunked reads must equal the rows' reads).
 */
const ratio = (num: string, den: string) =>
  `float8send(CASE WHEN ${den} > 0 THEN ${num}::float8 / ${den}::float8 ELSE 'NaN'::float8 END)`;

/**
 * Pack the chunks of the rollup's rows with bucket start in [from, to) (chunk-aligned), for `workers` only when given:
 * each (chunk, worker) with rows is written whole, replacing what was there.
 */
async function packChunks(tx: postgres.Sql, from: number, to: number, workers: readonly string[] | null) {
  await tx.unsafe(
    `INSERT INTO worker_chart_30s (chunk, worker_id, t, util, hit)
     SELECT minute - minute % ${CHART_CHUNK_MS}, worker_id,
       int8send(-min(minute - minute % ${CHART_CHUNK_MS}) - 1)
         || int2send(bit_or(1 << ((minute % ${CHART_CHUNK_MS}) / ${CHART_BUCKET_MS})::int)::int2),
       string_agg(${ratio("kv_active_sum", "kv_total_sum")}, ''::bytea ORDER BY minute),
       string_agg(${ratio("prefix_hit_delta", "prefix_query_delta")}, ''::bytea ORDER BY minute)
     FROM worker_stats_30s WHERE minute >= $1 AND minute < $2 ${workers ? "AND worker_id = ANY($3::text[])" : ""}
     GROUP BY 1, 2
     ON CONFLICT (chunk, worker_id) DO UPDATE SET t = excluded.t, util = excluded.util, hit = excluded.hit`,
    workers ? [from, to, workers as string[]] : [from, to],
  );
}

/** The sealed horizon (Unix ms; 0 when nothing is sealed yet). Read it under ROLLUP_LOCK. */
export async function chartHorizonPg(tx: postgres.Sql): Promise<number> {
  const [row] = await tx<{ u: number }[]>`
    SELECT sealed_until AS u FROM worker_chart_seal WHERE resolution = ${CHART_RESOLUTION}`;
  return row ? Number(row.u) : 0;
}

/**
 * Pack again the chunks a batch's rollup rows fell into behind the horizon (`late`: worker ids by chunk start), in the
 * batch's transaction under ROLLUP_LOCK, after its rows were written.
 */
export async function repackChartChunksPg(tx: postgres.Sql, late: ReadonlyMap<number, ReadonlySet<string>>) {
  for (const [chunk, workers] of late) await packChunks(tx, chunk, chunk + CHART_CHUNK_MS, [...workers]);
}

/** What the leader's seal step sees: the horizon (null: never sealed) and the rollup's first and last bucket. */
export type SealState = { sealed: number | null; oldest: number | null; newest: number | null };

/** A span of chunks to pack, [from, to) in Unix ms. */
export type SealSpan = { from: number; to: number };

/**
 * One seal step in one transaction under ROLLUP_LOCK: `decide` names the span to pack from what is stored (null:
 * nothing to do); its chunks are packed and its end becomes the horizon. Returns the span packed, or null.
 */
export async function sealChartChunksPg(
  sql: postgres.Sql,
  decide: (state: SealState) => SealSpan | null,
): Promise<SealSpan | null> {
  return pgTransaction(sql, async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${ROLLUP_LOCK})`);
    const [seal] = await tx<{ u: number }[]>`
      SELECT sealed_until AS u FROM worker_chart_seal WHERE resolution = ${CHART_RESOLUTION}`;
    const [range] = await tx<{ oldest: number | null; newest: number | null }[]>`
      SELECT min(minute) AS oldest, max(minute) AS newest FROM worker_stats_30s`;
    const sealed = seal ? Number(seal.u) : null;
    const oldest = range?.oldest == null ? null : Number(range.oldest);
    const newest = range?.newest == null ? null : Number(range.newest);
    const span = decide({ sealed, oldest, newest });
    if (!span) return null;
    await packChunks(tx, span.from, span.to, null);
    await tx`INSERT INTO worker_chart_seal (resolution, sealed_until) VALUES (${CHART_RESOLUTION}, ${span.to})
      ON CONFLICT (resolution) DO UPDATE SET sealed_until = excluded.sealed_until`;
    return span;
  });
}

/**
 * After retention deleted the rollup's rows before `before`: drop the chunks wholly before it and pack the one it cuts
 * from the rows left (when sealed), so that no chunk shows a bucket its rows no longer have. Returns chunk rows deleted.
 */
export async function trimChartChunksPg(sql: postgres.Sql, before: number): Promise<number> {
  return pgTransaction(sql, async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${ROLLUP_LOCK})`);
    const cut = chunkOf(before);
    const straddled = before > cut;
    const gone = await tx`DELETE FROM worker_chart_30s WHERE chunk < ${straddled ? cut + CHART_CHUNK_MS : cut}`;
    if (straddled && cut + CHART_CHUNK_MS <= (await chartHorizonPg(tx)))
      await packChunks(tx, cut, cut + CHART_CHUNK_MS, null);
    return gone.count;
  });
}
