import { type Db, isBusy } from "../../db/client";
import { applyKvEvents, attributeRequest, cursorOf, pruneIndex, requestsAfterCursor, sessionsWithNewTools, setCursor } from "../../db/queries/attribution";
import { rebuildSessionSummary } from "../../db/queries/session-summaries";
import { retentionCutoff } from "./retention";
import { errorMessage, log } from "../observability/logger";

const KV_BATCH = 10;
const REQUEST_BATCH = 5;
const TOOL_BATCH = 5_000;

export type AttributionRun = { kvEvents: number; requests: number; sessions: number; caughtUp: boolean };

/**
 * One bounded step of the attribution job: KV events first (residency must be current before a request is judged),
 * then requests in insertion order, then the summaries of every session they or new tool rows touched. Each batch is
 * its own short transaction so ingest is never blocked long. Returns what it did; caughtUp when nothing was left.
 */
export function attributionStep(db: Db): AttributionRun {
  const c = db.$client;
  const kvEvents = c.transaction(() => applyKvEvents(db, KV_BATCH))();
  if (kvEvents === KV_BATCH) return { kvEvents, requests: 0, sessions: 0, caughtUp: false };
  const touched = new Set<string>();
  const requests = c.transaction(() => {
    const rows = requestsAfterCursor(db, REQUEST_BATCH);
    for (const r of rows) {
      attributeRequest(db, r);
      if (r.sessionId) touched.add(r.sessionId);
    }
    const last = rows[rows.length - 1];
    if (last) setCursor(db, "requests", last.rid);
    return rows.length;
  })();
  const tools = c.transaction(() => {
    const ids = sessionsWithNewTools(db, TOOL_BATCH);
    for (const id of ids) touched.add(id);
    for (const id of touched) rebuildSessionSummary(db, id);
    return ids.length;
  })();
  return { kvEvents, requests, sessions: touched.size, caughtUp: requests < REQUEST_BATCH && tools < TOOL_BATCH };
}

/** Run steps until caught up, `maxSteps` ran or `budgetMs` of wall time passed (tests and benches call this synchronously). */
export function runAttribution(db: Db, maxSteps = 1_000_000, budgetMs = Infinity): AttributionRun {
  const total: AttributionRun = { kvEvents: 0, requests: 0, sessions: 0, caughtUp: false };
  const start = performance.now();
  for (let i = 0; i < maxSteps && !total.caughtUp && performance.now() - start < budgetMs; i++) {
    const r = attributionStep(db);
    total.kvEvents += r.kvEvents;
    total.requests += r.requests;
    total.sessions += r.sessions;
    total.caughtUp = r.caughtUp;
  }
  return total;
}

/** How far the job has read: its cursors (rowids of kv_events, requests, tools). */
export function attributionCursors(db: Db): { kv: number; requests: number; tools: number } {
  return { kv: cursorOf(db, "kv"), requests: cursorOf(db, "requests"), tools: cursorOf(db, "tools") };
}

/** Wall time one tick may hold the event loop (ingest shares it): small steps until this budget is spent. */
const TICK_BUDGET_MS = 10;

/**
 * Run the job every intervalMs (small steps for at most TICK_BUDGET_MS, then yield; sooner again while behind) and
 * prune its index with the raw retention; returns a stop function.
 */
export function startAttributionJob(db: Db, retentionHours: number, intervalMs = 1_000, now: () => number = Date.now): () => void {
  let lastPrune = 0;
  let timer: NodeJS.Timeout;
  let stopped = false;
  const tick = () => {
    let behind = false;
    try {
      behind = !runAttribution(db, 1_000, TICK_BUDGET_MS).caughtUp;
      if (now() - lastPrune > 600_000) {
        lastPrune = now();
        pruneIndex(db, retentionCutoff(now(), retentionHours));
      }
    } catch (err) {
      // Busy: ingest workers hold the write lock; this step rolled back and runs again on the next tick.
      if (isBusy(err)) behind = true;
      else log().error({ err: errorMessage(err) }, "attribution failed");
    }
    if (stopped) return;
    timer = setTimeout(tick, behind ? 100 : intervalMs);
    timer.unref();
  };
  timer = setTimeout(tick, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
