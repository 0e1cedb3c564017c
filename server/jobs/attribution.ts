import { type Db, isBusy } from "../../db/sqlite/client";
import {
  cursorOf,
  oldestUnattributed,
  pruneIndex,
  requestsAfterCursor,
  sessionsWithNewTools,
} from "../../db/sqlite/attribution";
import { applyKvEvents, attributeRequest, kvNeededBy } from "./attribution-request";
import { startStepLoop, type StepLoop } from "./step-loop";
import { dirtyLocal, dirtySeen, flushSeen, requestsJudged } from "../../db/sqlite/attribution-seen";
import { dirtyBlocks, flushIndex, listCacheFull, resetIndexCache } from "../../db/sqlite/attribution-index";
import { rebuildSessionSummary } from "./session-summary";
import { attributionLag, type AttributionLag } from "../../lib/attribution-lag";
import { errorMessage, log } from "../observability/logger";

const KV_BATCH = 100;
/**
 * Changed index blocks held in memory before they are written (each once, in key order), with the first-seen marks of
 * the same rows. More saves little time and grows attr_blocks: rows written in fewer, larger runs split more pages
 * (150k with the marks in the same rows: 21.3 MB for the replayed hour, where 200k gave 22.4).
 */
const FLUSH_AT = 150_000;
// The job also flushes once the cached interval lists hold ATTR_LIST_CACHE_INTERVALS intervals (listCacheFull): blocks
// moving between tiers make a new list at every move, and only a flush lets the cache drop the ones they left.
/** First-seen marks (sequence and local) held at most: they are written with or after the index flush. */
const SEEN_FLUSH_AT = 2 * FLUSH_AT;
/** Local-hash marks per round of their own (attr_local: 11.9 MB for the replayed hour at 50k, 12.8 at 100k). */
const LOCAL_FLUSH_AT = 50_000;
/**
 * While the job is behind, session summaries are rebuilt once this much wall time passed and this many turns were
 * judged since the last rebuild (or this many sessions wait): one rebuild covers many turns, and a slow or busy machine
 * does not rebuild the same sessions more often for the same work.
 */
const SUMMARY_EVERY_MS = 2_000;
const SUMMARY_EVERY_TURNS = 2_000;
const SUMMARY_MAX_PENDING = 2_000;

const pendingSessions = new WeakMap<object, { ids: Set<string>; last: number; turns: number }>();
/** Index blocks written per transaction: a few milliseconds of the write lock. */
const FLUSH_BATCH = 2_000;
const REQUEST_BATCH = 25;
const TOOL_BATCH = 5_000;

export type AttributionRun = { kvEvents: number; requests: number; sessions: number; caughtUp: boolean };

/**
 * One bounded step of the attribution job: the next requests in insertion order, after the KV events up to the latest
 * of their arrivals (residency at a request's arrival must be current; all of them once the requests are caught up),
 * then the summaries of every session they or new tool rows touched. KV events are applied KV_BATCH per step, so a
 * backlog is applied as the requests reach its times, not all before the first request. Each batch is its own short
 * transaction so ingest is never blocked long. Returns what it did; caughtUp when nothing was left.
 * A failed transaction rolled back: the index cache, which may hold its writes, is dropped before the error goes on.
 * `between` runs before each transaction (the worker thread's pause while ingest is busy).
 */
export function attributionStep(db: Db, between?: () => void): AttributionRun {
  try {
    return step(db, between);
  } catch (err) {
    // A transaction that never began changed nothing, on disk or in the cache: the cache is kept.
    if (!notBegun(err)) resetIndexCache(db);
    throw err;
  }
}

/** Errors of a transaction whose BEGIN IMMEDIATE gave up waiting for the write lock (nothing ran in it). */
const NOT_BEGUN = new WeakSet<object>();

/**
 * Whether attributionStep's error came from a transaction that never began (the write lock stayed taken): the cached
 * index was kept, and the step can simply run again.
 */
export function notBegun(err: unknown): boolean {
  return typeof err === "object" && err !== null && NOT_BEGUN.has(err);
}

function step(db: Db, between?: () => void): AttributionRun {
  const c = db.$client;
  // Each transaction takes the write lock as it begins (IMMEDIATE). A deferred one read first and then failed to write
  // whenever ingest had committed meanwhile (SQLITE_BUSY_SNAPSHOT, no wait), or waited for the lock past its timeout
  // in the middle: either rolled back work, and dropping the index cache (it may hold that work) meant reading it
  // back bucket by bucket. Ten such failures in the ingest of half an hour took the job's catch-up from ~15 s to
  // 30-90 s, and under steady ingest at 6x it never caught up (docs/benchmarks.md). Now the lock is waited for before
  // anything runs, so a busy failure leaves nothing to undo.
  const tx = <T>(fn: () => T): T => {
    between?.();
    let began = false;
    try {
      return c
        .transaction(() => {
          began = true;
          return fn();
        })
        .immediate();
    } catch (err) {
      if (!began && isBusy(err)) NOT_BEGUN.add(err as object);
      throw err;
    }
  };
  const rows = requestsAfterCursor(db, REQUEST_BATCH);
  const allKv = rows.length < REQUEST_BATCH;
  const upTo = allKv ? undefined : kvNeededBy(db, Math.max(...rows.map((r) => r.arrivedAt)));
  const kvEvents = applyKvEvents(db, KV_BATCH, upTo);
  const flushed = (allKv && kvEvents < KV_BATCH) || dirtyBlocks(db) >= FLUSH_AT || listCacheFull(db);
  if (flushed) while (tx(() => flushIndex(db, FLUSH_BATCH)) > 0);
  if (kvEvents === KV_BATCH) return { kvEvents, requests: 0, sessions: 0, caughtUp: false };
  let pending = pendingSessions.get(c);
  if (!pending) pendingSessions.set(c, (pending = { ids: new Set(), last: performance.now(), turns: 0 }));
  const touched = pending.ids;
  // The requests and the sessions with new tool rows in one transaction (one commit per step, not two).
  const [requests, tools] = tx(() => {
    for (const r of rows) {
      attributeRequest(db, r);
      if (r.sessionId) touched.add(r.sessionId);
    }
    const last = rows[rows.length - 1];
    if (last) requestsJudged(db, last.rid);
    const ids = sessionsWithNewTools(db, TOOL_BATCH);
    for (const id of ids) touched.add(id);
    return [rows.length, ids.length];
  });
  const caughtUp = requests < REQUEST_BATCH && tools < TOOL_BATCH;
  // Sequence-hash marks wait for the index flush, which writes those of the blocks it rewrites in the same row write
  // (most new blocks: stored, then judged, before the next flush); the rest follow it. Local-hash marks (their own
  // table) are written in rounds of LOCAL_FLUSH_AT: larger rounds split more of attr_local's pages.
  if (caughtUp || flushed || dirtySeen(db) >= SEEN_FLUSH_AT) while (tx(() => flushSeen(db, FLUSH_BATCH)) > 0);
  else if (dirtyLocal(db) >= LOCAL_FLUSH_AT) while (tx(() => flushSeen(db, FLUSH_BATCH, true)) > 0);
  let sessions = 0;
  pending.turns += requests;
  const due = performance.now() - pending.last >= SUMMARY_EVERY_MS && pending.turns >= SUMMARY_EVERY_TURNS;
  if (caughtUp || touched.size >= SUMMARY_MAX_PENDING || due) {
    sessions = touched.size;
    for (const chunk of chunks([...touched], 50)) tx(() => chunk.forEach((id) => rebuildSessionSummary(db, id)));
    touched.clear();
    pending.last = performance.now();
    pending.turns = 0;
  }
  return { kvEvents, requests, sessions, caughtUp };
}

function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/**
 * Run steps until caught up, `maxSteps` ran or `budgetMs` of wall time passed (tests and benches call this
 * synchronously); `between` as for attributionStep.
 */
export function runAttribution(
  db: Db,
  maxSteps = 1_000_000,
  budgetMs = Infinity,
  between?: () => void,
): AttributionRun {
  const total: AttributionRun = { kvEvents: 0, requests: 0, sessions: 0, caughtUp: false };
  const start = performance.now();
  for (let i = 0; i < maxSteps && !total.caughtUp && performance.now() - start < budgetMs; i++) {
    const r = attributionStep(db, between);
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

/**
 * How far attribution is behind at `now`: from when the oldest request it has not judged yet was stored (its event
 * time, the turn's end), so a turn stored a moment ago reads "up to date" however long it ran.
 */
export function attributionLagOf(db: Db, now: number): AttributionLag {
  return attributionLag(oldestUnattributed(db, "ts"), now);
}

export type AttributionLoop = StepLoop;

/**
 * Run the job continuously on this connection (meant for a worker thread): steps back to back while behind, a pause of
 * idleMs when caught up, a short backoff when ingest holds the write lock (SQLITE_BUSY: the step rolled back and runs
 * again), and an index prune with the raw retention every hour. Between steps it yields to the thread's loop;
 * `between` runs before each of its transactions (the pause while ingest is busy: ingest keeps priority).
 */
export function runAttributionLoop(
  db: Db,
  retentionHours: number,
  idleMs = 1_000,
  now: () => number = Date.now,
  between?: () => void,
): AttributionLoop {
  // A prune that fails (busy or otherwise) is tried again an hour later.
  return startStepLoop(
    () => {
      try {
        return runAttribution(db, 1_000, 50, between).caughtUp ? idleMs : 0;
      } catch (err) {
        if (isBusy(err)) return 20;
        log().error({ err: errorMessage(err) }, "attribution failed");
        return idleMs;
      }
    },
    () => {
      try {
        pruneIndex(db, now() - Math.round(retentionHours * 3_600_000));
      } catch (err) {
        if (!isBusy(err)) log().error({ err: errorMessage(err) }, "attribution index prune failed");
      }
    },
    now,
  );
}
