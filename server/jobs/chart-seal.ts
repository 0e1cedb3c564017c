// The leader's sealing of PostgreSQL's chart chunks (db/pg/chart-chunks.ts): every half minute, the 5-minute chunks
// of the 30-second rollup that are complete are packed. Which chunks are complete is decided here (sealSpan, pure).
import type postgres from "postgres";
import { isPgUnavailable } from "../../db/pg/client";
import { chunkOf, sealChartChunksPg, type SealSpan, type SealState } from "../../db/pg/chart-chunks";
import { errorMessage, log } from "../observability/logger";

/** How long after a chunk ends, in the rollup's own time, before it is sealed: samples posted late still land in it. */
export const SEAL_GRACE_MS = 60_000;
/** The most one transaction seals (it holds the rollup lock, so ingest waits): six hours, ~0.1 s of 64 workers. */
export const SEAL_MAX_MS = 6 * 3_600_000;
/** How often the leader looks. */
export const SEAL_INTERVAL_MS = 30_000;
/** The longest a stop waits for a pass in flight. */
const STOP_WAIT_MS = 5_000;

/**
 * The chunks to seal (null: nothing to do): from the current horizon (the oldest bucket's chunk when never sealed) up
 * to every chunk that ended SEAL_GRACE_MS before the newest bucket stored and before `now` (a sample stamped in the
 * future never seals chunks ahead of the clock), at most SEAL_MAX_MS of them.
 */
export function sealSpan(state: SealState, now: number): SealSpan | null {
  const { sealed, oldest, newest } = state;
  if (oldest === null || newest === null) return null;
  const from = sealed ?? chunkOf(oldest);
  const to = Math.min(chunkOf(Math.min(newest, now) - SEAL_GRACE_MS), from + SEAL_MAX_MS);
  return to > from ? { from, to } : null;
}

/** Seal until caught up (steps of at most SEAL_MAX_MS, yielding between): the spans sealed, in order. */
export async function sealChartChunks(sql: postgres.Sql, now: () => number = Date.now): Promise<SealSpan[]> {
  const spans: SealSpan[] = [];
  for (;;) {
    const span = await sealChartChunksPg(sql, (state) => sealSpan(state, now()));
    if (!span) return spans;
    spans.push(span);
    if (span.to - span.from < SEAL_MAX_MS) return spans;
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * Seal now and then every `intervalMs` (one pass at a time); returns a stop function that resolves once a pass in
 * flight has ended (its transaction committed or rolled back before the caller closes the pool), or after
 * STOP_WAIT_MS (a pass stuck on a lost connection must not hold up the leader's next start).
 */
export function startChartSealer(sql: postgres.Sql, intervalMs = SEAL_INTERVAL_MS): () => Promise<void> {
  let running: Promise<void> | null = null;
  const pass = () => {
    running ??= sealChartChunks(sql)
      .then(() => undefined)
      .catch((err: unknown) => {
        // PostgreSQL gone for a while: the next pass seals what this one could not.
        if (isPgUnavailable(err)) log().warn({ err: errorMessage(err) }, "chart chunks: PostgreSQL unavailable");
        else log().error({ err: errorMessage(err) }, "chart chunks: sealing failed");
      })
      .finally(() => {
        running = null;
      });
  };
  pass();
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    if (!running) return;
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise((r) => (wait = setTimeout(r, STOP_WAIT_MS)))]);
    clearTimeout(wait);
  };
}
