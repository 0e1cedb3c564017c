import type { PgDb } from "../../db/pg/client";
import { pgTransaction } from "../../db/pg/client";
import { decodePolicyVersions } from "../../db/codecs/request-json";
import {
  attributionStatePg,
  decisionsOfPg,
  insertionPointPg,
  kvEventsAfterPg,
  kvLastInRangePg,
  kvLastInWindowPg,
  policyVersionsAtPg,
  previousTurnsPg,
  putCausesPg,
  requestsAfterPg,
  toolsAfterPg,
  writeAttributionStatePg,
  type PgRequestRow,
} from "../../db/pg/attribution";
import {
  deleteSessionSummaryPg,
  sessionSummaryInputsPg,
  writeSessionSummaryPg,
} from "../../db/pg/attribution-summaries";
import { minuteOf } from "../../lib/counters";
import {
  attributeTurn,
  isDeviceResidency,
  recomputedBlocks,
  type BlockFacts,
  type TurnInput,
} from "../../lib/attribution";
import { causesRowOf, retentionVersionOf } from "./attribution-causes";
import { keyAt, PgIndex } from "./attribution-pg-index";
import { summaryRowOf } from "./session-summary";
import type { AttributionRun } from "./attribution";

// The attribution job on PostgreSQL: the SQLite job's steps (attribution.ts, attribution-request.ts) in the same
// order and batches, over the rows of db/pg/attribution.ts and the index of attribution-pg-index.ts, so the same
// input gives the same causes, per-minute causes and summaries. Reads stop at rows every transaction before has
// finished writing (settledUpTo): identity and sequence numbers are taken at insert, not at commit.

const KV_BATCH = 100;
const REQUEST_BATCH = 25;
const TOOL_BATCH = 5_000;
/** Changed blocks and marks held before they are written with the cursors. */
const FLUSH_AT = 50_000;
const SUMMARY_EVERY_MS = 2_000;
const SUMMARY_EVERY_TURNS = 2_000;
const SUMMARY_MAX_PENDING = 2_000;

type Horizon = { t: number; scanned: number; need: number };
type Point = { requests: number; kv: number; tools: number };

/** One connection's job: its index, the settled insertion point, the sessions waiting for a summary. */
export type PgAttribution = {
  pg: PgDb;
  index: PgIndex | null;
  horizon: Horizon | null;
  /** Rows up to these numbers are all committed (or rolled back). */
  settled: Point;
  pending: { xmax: number; at: number; point: Point } | null;
  /** How long a seen insertion point waits before it counts as settled (ms; a row's number and its transaction id are taken a moment apart). */
  settleMs: number;
  touched: Set<string>;
  lastSummary: number;
  turns: number;
};

/** The job's state over a pool (settleMs 0 in tests, where nothing writes meanwhile). */
export function pgAttribution(pg: PgDb, settleMs = 1_000): PgAttribution {
  return {
    pg,
    index: null,
    horizon: null,
    settled: { requests: 0, kv: 0, tools: 0 },
    pending: null,
    settleMs,
    touched: new Set(),
    lastSummary: performance.now(),
    turns: 0,
  };
}

/** Move the settled point: the numbers seen at an earlier look, once every transaction open then has ended. */
async function settle(job: PgAttribution): Promise<boolean> {
  const p = await insertionPointPg(job.pg.$client);
  const now = performance.now();
  if (!job.pending) job.pending = { xmax: p.xmax, at: now, point: p };
  if (p.xmin >= job.pending.xmax && now - job.pending.at >= job.settleMs) {
    job.settled = job.pending.point;
    job.pending = { xmax: p.xmax, at: now, point: p };
    if (job.settleMs === 0 && p.xmin >= p.xmax) job.settled = p;
  }
  const s = job.settled;
  return s.requests >= p.requests && s.kv >= p.kv && s.tools >= p.tools;
}

/** The kv_events seq the index must have applied before a request that arrived at t is judged (as kvNeededBy). */
async function kvNeededBy(job: PgAttribution, t: number): Promise<number> {
  const q = job.pg.$client;
  const max = job.settled.kv;
  let h = job.horizon;
  if (!h) h = job.horizon = { t: Number.MIN_SAFE_INTEGER, scanned: max, need: 0 };
  const upTo = Math.max(h.t, t);
  if (max > h.scanned) {
    h.need = Math.max(h.need, (await kvLastInRangePg(q, h.scanned, max, upTo)) ?? 0);
    h.scanned = max;
  }
  if (upTo > h.t) {
    h.need = Math.max(h.need, (await kvLastInWindowPg(q, h.t, upTo, max)) ?? 0);
    h.t = upTo;
  }
  return h.need;
}

/** Apply up to `limit` KV events after those applied, up to seq `upTo`; returns how many were read. */
async function applyKvEvents(job: PgAttribution, ix: PgIndex, limit: number, upTo: number): Promise<number> {
  const q = job.pg.$client;
  const rows = await kvEventsAfterPg(q, ix.cursors.kv, Math.min(upTo, job.settled.kv), limit);
  const lists = rows.map((r) =>
    isDeviceResidency(r.tier) && r.op !== "cleared" && r.hashes
      ? Array.from({ length: r.hashes.length >>> 3 }, (_, k) => keyAt(r.hashes!, k))
      : [],
  );
  await ix.load(q, lists.flat());
  rows.forEach((r, i) => {
    ix.cursors.kv = Math.max(ix.cursors.kv, r.seq);
    if (!isDeviceResidency(r.tier)) return;
    const w = ix.nameId(r.workerId);
    if (r.op === "cleared") ix.cleared(w, r.ts);
    else if (r.op === "stored") ix.stored(lists[i]!, w, r.ts);
    else if (r.op === "removed") ix.removed(lists[i]!, w, r.ts, ix.nameId(r.reason ?? "unknown"));
  });
  return rows.length;
}

const NEW_NO_LOCAL: BlockFacts = { residentOn: [], seenBefore: false, lastRemoval: null, localSeenBefore: null };
const NEW_LOCAL_SEEN: BlockFacts = { residentOn: [], seenBefore: false, lastRemoval: null, localSeenBefore: true };
const NEW_LOCAL_UNSEEN: BlockFacts = { residentOn: [], seenBefore: false, lastRemoval: null, localSeenBefore: false };

/** Judge a step's requests in order (as attributeRequest): their causes rows, for one insert. */
async function judge(job: PgAttribution, ix: PgIndex, rows: readonly PgRequestRow[]) {
  const q = job.pg.$client;
  const [decisions, prevs] = await Promise.all([
    decisionsOfPg(
      q,
      rows.map((r) => r.requestId),
    ),
    previousTurnsPg(
      q,
      rows.map((r) => ({ sessionId: r.sessionId ?? "", trajectoryId: r.trajectoryId, before: r.arrivedAt })),
    ),
  ]);
  const plans = rows.map((r) => {
    const length = r.seq ? r.seq.byteLength >>> 3 : 0;
    const hasLocal = length > 0 && r.local !== null && r.local.byteLength === r.seq!.byteLength;
    const turn: TurnInput = {
      inputTokens: r.inputTokens,
      cachedTokens: r.cachedTokens,
      blockSize: r.blockSize,
      blockCount: length,
      workerId: r.workerId,
      decision: decisions.get(r.requestId) ?? null,
    };
    const { first, end } = recomputedBlocks(turn);
    const seq = Array.from({ length: Math.max(0, end - first) }, (_, k) => keyAt(r.seq!, first + k));
    const local = hasLocal ? Array.from({ length: seq.length }, (_, k) => keyAt(r.local!, first + k)) : null;
    return { r, turn, seq, local };
  });
  await ix.load(
    q,
    plans.flatMap((p) => p.seq),
  );
  await ix.loadLocal(
    q,
    plans.flatMap((p) => p.local ?? []),
  );
  const out = [];
  for (const [i, { r, turn, seq, local }] of plans.entries()) {
    const n = seq.length;
    let from = 0;
    let to = n;
    while (from < to) {
      const mid = (from + to) >>> 1;
      const at = ix.seenFirstAt(seq[mid]!);
      if (at !== undefined && at < r.arrivedAt) from = mid + 1;
      else to = mid;
    }
    const boundary = from;
    const facts: BlockFacts[] = new Array<BlockFacts>(n);
    for (let k = 0; k < boundary; k++) {
      const at = ix.residencyAt(seq[k]!, r.arrivedAt, r.workerId);
      const seen = ix.seenFirstAt(seq[k]!);
      facts[k] = {
        residentOn: at.residentOn,
        seenBefore: seen !== undefined && seen < r.arrivedAt,
        lastRemoval: at.lastRemoval,
        localSeenBefore: null,
      };
    }
    const known = new Set<number>();
    if (local) for (let k = boundary; k < n; k++) if (ix.localSeenBefore(local[k]!, r.arrivedAt)) known.add(k);
    for (let k = boundary; k < n; k++)
      facts[k] = !local ? NEW_NO_LOCAL : known.has(k) ? NEW_LOCAL_SEEN : NEW_LOCAL_UNSEEN;
    const cacheableAt = r.firstTokenAt ?? r.finishedAt ?? r.arrivedAt;
    for (let k = boundary; k < n; k++) ix.markSeen(seq[k]!, cacheableAt);
    if (local) for (let k = boundary; k < n; k++) if (!known.has(k)) ix.markLocal(local[k]!, r.arrivedAt);
    const a = attributeTurn(turn, facts);
    const retentionVersion = a.mainRemoval
      ? retentionVersionOf(decodePolicyVersions(await policyVersionsAtPg(q, a.mainRemoval.at)) ?? undefined)
      : null;
    const prev = r.sessionId ? prevs.get(i) : undefined;
    out.push(causesRowOf(r, a, retentionVersion, prev));
  }
  return out;
}

/** Write the index's changes with the cursors they stand for, in one transaction. */
export async function flush(job: PgAttribution, ix: PgIndex): Promise<void> {
  // The sessions of requests the saved cursor will pass are summarized first: a crash after it cannot skip them.
  await summarize(job);
  const f = ix.flush();
  await pgTransaction(job.pg.$client, (tx) => writeAttributionStatePg(tx, f));
  ix.written();
}

/**
 * One bounded step, as attributionStep on SQLite: the next requests after the KV events they need, then the summaries
 * of the sessions they or new tool rows touched. A failed step drops the in-memory index (read again from the last
 * flush, whose cursors stand for it) before the error goes on.
 */
export async function attributionStepPg(job: PgAttribution): Promise<AttributionRun> {
  try {
    return await step(job);
  } catch (err) {
    job.index = null;
    job.horizon = null;
    throw err;
  }
}

async function step(job: PgAttribution): Promise<AttributionRun> {
  const q = job.pg.$client;
  const ix = (job.index ??= new PgIndex(await attributionStatePg(q)));
  // Rows past the settled point are not read yet (a transaction still open anywhere on the server, even in another
  // database, holds the point back): the job is not caught up while there are any.
  const settledAll = await settle(job);
  const rows = await requestsAfterPg(q, ix.cursors.requests, job.settled.requests, REQUEST_BATCH);
  const allKv = rows.length < REQUEST_BATCH;
  const upTo = allKv ? Number.MAX_SAFE_INTEGER : await kvNeededBy(job, Math.max(...rows.map((r) => r.arrivedAt)));
  const kvEvents = await applyKvEvents(job, ix, KV_BATCH, upTo);
  if (kvEvents === KV_BATCH) {
    if (ix.dirty >= FLUSH_AT || ix.cacheFull()) await flush(job, ix);
    return { kvEvents, requests: 0, sessions: 0, caughtUp: false };
  }
  const causes = await judge(job, ix, rows);
  const tools = await toolsAfterPg(q, ix.cursors.tools, job.settled.tools, TOOL_BATCH);
  for (const r of rows) if (r.sessionId) job.touched.add(r.sessionId);
  for (const t of tools) job.touched.add(t.sessionId);
  const last = rows[rows.length - 1];
  if (last) ix.cursors.requests = last.rid;
  const lastTool = tools[tools.length - 1];
  if (lastTool) ix.cursors.tools = lastTool.seq;
  // Judged again after a crash (the cursors are saved with the index): the causes row is kept and counted once.
  if (causes.length) await pgTransaction(q, (tx) => putCausesPg(tx, causes, minuteOf));
  const caughtUp = rows.length < REQUEST_BATCH && tools.length < TOOL_BATCH && settledAll;
  job.turns += rows.length;
  const due = performance.now() - job.lastSummary >= SUMMARY_EVERY_MS && job.turns >= SUMMARY_EVERY_TURNS;
  // A full cache is written and trimmed too (PG_ATTR_CACHE_BYTES): blocks moved between tiers grow long interval lists.
  const flushing = caughtUp || ix.dirty >= FLUSH_AT || ix.cacheFull();
  const sessions = flushing || job.touched.size >= SUMMARY_MAX_PENDING || due ? job.touched.size : 0;
  if (flushing) await flush(job, ix);
  else if (sessions > 0) await summarize(job);
  return { kvEvents, requests: rows.length, sessions, caughtUp };
}

/** Rebuild the summaries of the sessions touched since the last rebuild, 50 to a transaction. */
async function summarize(job: PgAttribution): Promise<void> {
  const ids = [...job.touched];
  for (let i = 0; i < ids.length; i += 50)
    await pgTransaction(job.pg.$client, async (tx) => {
      for (const id of ids.slice(i, i + 50)) {
        const row = summaryRowOf(id, await sessionSummaryInputsPg(tx, id));
        if (row) await writeSessionSummaryPg(tx, row);
        else await deleteSessionSummaryPg(tx, id);
      }
    });
  job.touched.clear();
  job.lastSummary = performance.now();
  job.turns = 0;
}

/** Run steps until caught up, `maxSteps` ran or `budgetMs` passed (tests and benches). */
export async function runAttributionPg(
  job: PgAttribution,
  maxSteps = 1_000_000,
  budgetMs = Infinity,
  between?: () => void,
): Promise<AttributionRun> {
  const total: AttributionRun = { kvEvents: 0, requests: 0, sessions: 0, caughtUp: false };
  const start = performance.now();
  for (let i = 0; i < maxSteps && !total.caughtUp && performance.now() - start < budgetMs; i++) {
    between?.();
    const r = await attributionStepPg(job);
    total.kvEvents += r.kvEvents;
    total.requests += r.requests;
    total.sessions += r.sessions;
    total.caughtUp = r.caughtUp;
  }
  return total;
}
