import { startStepLoop, type StepLoop } from "./step-loop";
import { pgTransaction } from "../../db/pg/client";
import { decodeIntervals, encodeIntervals } from "../../db/sqlite/attribution-intervals";
import { attributionStatePg } from "../../db/pg/attribution";
import { blocksAfterPg, prunedBlocksPg, pruneLocalPg } from "../../db/pg/attribution-prune";
import { flush, runAttributionPg, type PgAttribution } from "./attribution-pg";
import { PgIndex } from "./attribution-pg-index";

// The PostgreSQL job's loop (the worker thread runs it) and its hourly prune of the index.

/**
 * Drop the intervals that ended before cutoff (Unix ms), and the rows of blocks with none left whose mark is older (or
 * missing), `batch` rows per short transaction; local marks older than cutoff go too. Everything is flushed first and
 * the index read again afterwards. Returns rows changed.
 */
export async function pruneIndexPg(job: PgAttribution, cutoff: number, batch = 2_000): Promise<number> {
  const q = job.pg.$client;
  const ix = (job.index ??= new PgIndex(await attributionStatePg(q)));
  await flush(job, ix);
  let n = 0;
  let after: string | null = null;
  for (;;) {
    const rows = await blocksAfterPg(q, after, batch);
    const rewrite: { key: string; intervals: Buffer | null }[] = [];
    const remove: string[] = [];
    for (const r of rows) {
      const list = r.intervals ? decodeIntervals(r.intervals) : [];
      const kept = list.filter((v) => {
        const end = ix.endOf(v);
        return end === null || end.at >= cutoff;
      });
      if (kept.length === 0 && (r.firstAt === null || r.firstAt < cutoff)) remove.push(r.key);
      else if (kept.length !== list.length)
        rewrite.push({ key: r.key, intervals: kept.length ? encodeIntervals(kept) : null });
    }
    if (rewrite.length || remove.length) await pgTransaction(q, (tx) => prunedBlocksPg(tx, rewrite, remove));
    n += rewrite.length + remove.length;
    if (rows.length < batch) break;
    after = rows[rows.length - 1]!.key;
  }
  for (let k = batch; k === batch; n += k) k = await pruneLocalPg(q, cutoff, batch);
  job.index = null;
  job.horizon = null;
  return n;
}

/**
 * Run the job continuously on its own pool (the worker thread's): steps back to back while behind, a pause of idleMs
 * when caught up or after a failure (PostgreSQL away: it resumes from the last flush once it is back), and an index
 * prune with the raw retention every hour. `between` runs
 * before each step (the pause while ingest is busy: ingest keeps priority).
 */
export function runAttributionLoopPg(
  job: PgAttribution,
  retentionHours: number,
  idleMs = 1_000,
  between?: () => void,
  onError: (err: unknown) => void = () => {},
  now: () => number = Date.now,
): StepLoop {
  return startStepLoop(
    async () => {
      try {
        const r = await runAttributionPg(job, 1_000, 50, between);
        // Nothing read: caught up, or rows wait for their point to settle (settleMs): no use asking again at once.
        return r.caughtUp || r.requests + r.kvEvents === 0 ? idleMs : 0;
      } catch (err) {
        onError(err);
        return idleMs;
      }
    },
    async () => {
      try {
        await pruneIndexPg(job, now() - Math.round(retentionHours * 3_600_000));
      } catch (err) {
        onError(err);
      }
    },
    now,
  );
}
