import type Database from "better-sqlite3";
import {
  attributeTurn,
  isDeviceResidency,
  recomputedBlocks,
  type Attribution,
  type BlockFacts,
  type TurnInput,
} from "../../server/analysis/attribution";
import { minuteOf } from "../../server/analysis/counters";
import type { Db } from "../client";
import { blockListOf, chainsOf } from "./attribution-chains";
import { forgetKvLocations } from "./kv-lists";
import {
  blockFactsAt,
  flushIndex,
  IndexWriter,
  kvApplied,
  dropEmptyBlocks,
  nameId,
  pruneDone,
  pruneLists,
} from "./attribution-index";
import {
  flushSeen,
  forgetSeen,
  localSeenBefore,
  markLocal,
  markSeen,
  requestsDone,
  seenFirstAt,
} from "./attribution-seen";

// Reads and writes of the attribution job's index tables (db/schema/sessions.ts). Never called from ingest.

export { toKey } from "./attribution-chains";

type Stmts = ReturnType<typeof prepare>;
const cache = new WeakMap<Database.Database, Stmts>();

function prepare(c: Database.Database) {
  return {
    getState: c.prepare("SELECT value FROM attr_state WHERE key = ?").pluck(),
    setState: c.prepare(
      "INSERT INTO attr_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ),
    kvAfter: c.prepare(
      "SELECT rowid AS rid, ts, op, worker_id AS workerId, block_hashes AS hashes, block_refs AS refs, reason, storage_tier AS tier FROM kv_events WHERE rowid > ? ORDER BY rowid LIMIT ?",
    ),
    requestsAfter: c.prepare(
      `SELECT rowid AS rid, id, request_id AS requestId, session_id AS sessionId, trajectory_id AS trajectoryId, worker_id AS workerId, arrived_at AS arrivedAt,
         first_token_at AS firstTokenAt, finished_at AS finishedAt, input_tokens AS inputTokens, cached_tokens AS cachedTokens, output_tokens AS outputTokens,
         block_size AS blockSize
       FROM requests WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    ),
    decision: c.prepare(
      "SELECT chosen_overlap_blocks AS chosenOverlap, best_overlap_blocks AS bestOverlap FROM route_decisions WHERE request_id = ? ORDER BY ts DESC LIMIT 1",
    ),
    previousTurn: c.prepare(
      `SELECT input_tokens AS input, finished_at AS finishedAt FROM requests WHERE session_id = ? AND trajectory_id IS ? AND arrived_at < ? ORDER BY arrived_at DESC LIMIT 1`,
    ),
    versionAt: c
      .prepare(
        "SELECT policy_versions FROM requests WHERE arrived_at <= ? AND policy_versions IS NOT NULL ORDER BY arrived_at DESC LIMIT 1",
      )
      .pluck(),
    putCauses: c.prepare(
      `INSERT INTO request_causes (id, request_id, session_id, arrived_at, recomputed, cold, diverged, evicted, routed_away, unknown, evicted_reason, retention_version,
         held_tokens, wait_ms, survived_tokens) VALUES (@id, @requestId, @sessionId, @arrivedAt, @recomputed, @cold, @diverged, @evicted, @routedAway, @unknown,
         @evictedReason, @retentionVersion, @heldTokens, @waitMs, @survivedTokens) ON CONFLICT(id) DO NOTHING`,
    ),
    putMinute: c.prepare(
      `INSERT INTO causes_1m (minute, cold, diverged, evicted, routed_away, unknown) VALUES (@minute, @cold, @diverged, @evicted, @routedAway, @unknown)
       ON CONFLICT(minute) DO UPDATE SET cold = cold + excluded.cold, diverged = diverged + excluded.diverged, evicted = evicted + excluded.evicted,
         routed_away = routed_away + excluded.routed_away, unknown = unknown + excluded.unknown`,
    ),
    toolsAfter: c.prepare(
      "SELECT rowid AS rid, session_id AS sessionId FROM tools WHERE rowid > ? ORDER BY rowid LIMIT ?",
    ),
  };
}

/** The job's prepared statements for a connection. */
export function stmts(db: Db): Stmts {
  let s = cache.get(db.$client);
  if (!s) cache.set(db.$client, (s = prepare(db.$client)));
  return s;
}

/** A cursor value of the job (0 when never set). */
export function cursorOf(db: Db, key: string): number {
  return (stmts(db).getState.get(key) as number | undefined) ?? 0;
}

/** Apply up to `limit` KV events after those already applied to the in-memory index; returns how many were read. */
export function applyKvEvents(db: Db, limit: number): number {
  const s = stmts(db);
  const rows = s.kvAfter.all(kvApplied(db), limit) as {
    rid: number;
    ts: number;
    op: string;
    workerId: string;
    hashes: string | null;
    refs: Uint8Array | null;
    reason: string | null;
    tier: string | null;
  }[];
  const w = new IndexWriter(db);
  for (const r of rows) {
    if (!isDeviceResidency(r.tier)) {
      w.applied(r.rid);
      continue;
    }
    const worker = nameId(db, r.workerId);
    if (r.op === "cleared") w.cleared(worker, r.ts);
    else if (r.op === "stored") for (const h of blockListOf(db, r)) w.stored(h, worker, r.ts);
    else if (r.op === "removed") {
      const why = nameId(db, r.reason ?? "unknown");
      for (const h of blockListOf(db, r)) w.removed(h, worker, r.ts, why);
    }
    w.applied(r.rid);
  }
  return rows.length;
}

export type RequestRow = {
  rid: number;
  id: string;
  requestId: string;
  sessionId: string | null;
  trajectoryId: string | null;
  workerId: string | null;
  arrivedAt: number;
  firstTokenAt: number | null;
  finishedAt: number | null;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  blockSize: number | null;
};

/** Requests after the job's cursor, in insertion order. */
export function requestsAfterCursor(db: Db, limit: number): RequestRow[] {
  return stmts(db).requestsAfter.all(requestsDone(db), limit) as RequestRow[];
}

/**
 * The first block in [lo, hi) whose sequence hash was not cacheable before t. Sequence hashes chain their prefix, so
 * "seen" is prefix-closed and a binary search finds the boundary in a few lookups.
 */
function firstUnseen(db: Db, keys: readonly bigint[], lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = seenFirstAt(db, keys[mid]!);
    if (at !== undefined && at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Attribute one request's misses, record its new blocks as seen, and store its causes and minute sums. */
export function attributeRequest(db: Db, r: RequestRow): Attribution {
  const s = stmts(db);
  const chains = chainsOf(db, r);
  const decision = (s.decision.get(r.requestId) as { chosenOverlap: number; bestOverlap: number } | undefined) ?? null;
  const turn: TurnInput = {
    inputTokens: r.inputTokens,
    cachedTokens: r.cachedTokens,
    blockSize: r.blockSize,
    blockCount: chains.length,
    workerId: r.workerId,
    decision,
  };
  const { first, end } = recomputedBlocks(turn);
  const hasLocal = chains.length > 0 && chains.localKey(0) !== null;
  const seqKeys: bigint[] = [];
  for (let i = first; i < end; i++) seqKeys.push(chains.seqKey(i));
  const boundary = firstUnseen(db, seqKeys, 0, seqKeys.length, r.arrivedAt);
  const facts: BlockFacts[] = [];
  for (let k = 0; k < boundary; k++) {
    const seenAt = seenFirstAt(db, seqKeys[k]!);
    facts.push(blockFactsAt(db, seqKeys[k]!, r.arrivedAt, r.workerId, seenAt !== undefined && seenAt < r.arrivedAt));
  }
  const localKeys: bigint[] = [];
  if (hasLocal) for (let i = first + boundary; i < end; i++) localKeys.push(chains.localKey(i)!);
  const known = hasLocal ? localSeenBefore(db, localKeys, r.arrivedAt) : new Set<bigint>();
  for (let k = boundary; k < seqKeys.length; k++) {
    const lk = hasLocal ? localKeys[k - boundary]! : null;
    facts.push({
      residentOn: [],
      seenBefore: false,
      lastRemoval: null,
      localSeenBefore: lk === null ? null : known.has(lk),
    });
  }
  const cacheableAt = r.firstTokenAt ?? r.finishedAt ?? r.arrivedAt;
  for (let k = boundary; k < seqKeys.length; k++) {
    markSeen(db, seqKeys[k]!, cacheableAt);
    const lk = localKeys[k - boundary];
    if (lk !== undefined && !known.has(lk)) markLocal(db, lk, r.arrivedAt);
  }
  const a = attributeTurn(turn, facts);
  let retentionVersion: number | null = null;
  if (a.mainRemoval) {
    const pv = s.versionAt.get(a.mainRemoval.at) as string | undefined;
    const v = pv ? (JSON.parse(pv) as { retention?: unknown }).retention : undefined;
    retentionVersion = typeof v === "number" ? v : null;
  }
  const prev = r.sessionId
    ? (s.previousTurn.get(r.sessionId, r.trajectoryId, r.arrivedAt) as
        { input: number; finishedAt: number | null } | undefined)
    : undefined;
  const c = a.tokens;
  // Judged again after a crash (the cursor is saved with the marks): the causes row is kept and counted once.
  const fresh = s.putCauses.run({
    id: r.id,
    requestId: r.requestId,
    sessionId: r.sessionId,
    arrivedAt: r.arrivedAt,
    recomputed: a.recomputed,
    cold: c.cold,
    diverged: c.diverged,
    evicted: c.evicted,
    routedAway: c.routed_away,
    unknown: c.unknown,
    evictedReason: a.mainRemoval?.reason ?? (c.evicted > 0 ? "unknown" : null),
    retentionVersion,
    heldTokens: prev ? prev.input : null,
    waitMs: prev?.finishedAt ? Math.max(0, r.arrivedAt - prev.finishedAt) : null,
    survivedTokens: prev ? Math.min(r.cachedTokens, prev.input) : null,
  }).changes;
  if (fresh === 0) return a;
  s.putMinute.run({
    minute: minuteOf(r.arrivedAt),
    cold: c.cold,
    diverged: c.diverged,
    evicted: c.evicted,
    routedAway: c.routed_away,
    unknown: c.unknown,
  });
  return a;
}

/** Sessions with tool rows after the tools cursor (and advance it). */
export function sessionsWithNewTools(db: Db, limit: number): string[] {
  const s = stmts(db);
  const rows = s.toolsAfter.all(cursorOf(db, "tools"), limit) as { rid: number; sessionId: string }[];
  const last = rows[rows.length - 1];
  if (last) s.setState.run("tools", last.rid);
  return rows.map((r) => r.sessionId);
}

/** Move a cursor. */
export function setCursor(db: Db, key: string, value: number): void {
  stmts(db).setState.run(key, value);
}

/** Drop index rows older than cutoff (Unix ms) in batches of `batch` rows, one short transaction each; returns rows changed. */
export function pruneIndex(db: Db, cutoff: number, batch = 2_000): number {
  const c = db.$client;
  while (c.transaction(() => flushIndex(db, batch))() > 0);
  while (c.transaction(() => flushSeen(db, batch))() > 0);
  let n = 0;
  let after: number | null = 0;
  do {
    const r = c.transaction(() => pruneLists(db, cutoff, after!, batch))();
    n += r.changed;
    after = r.next;
  } while (after !== null);
  for (let k = batch; k === batch; n += k) k = c.transaction(() => dropEmptyBlocks(db, batch))();
  const seen = c.prepare(
    "DELETE FROM attr_blocks WHERE rowid IN (SELECT hash FROM attr_blocks WHERE list = 0 AND (first_at IS NULL OR first_at < ?) LIMIT ?)",
  );
  const local = c.prepare(
    "DELETE FROM attr_local WHERE rowid IN (SELECT rowid FROM attr_local WHERE first_at < ? LIMIT ?)",
  );
  for (const stmt of [seen, local]) {
    for (let k = batch; k === batch; n += k) k = stmt.run(cutoff, batch).changes;
  }
  pruneDone(db);
  forgetSeen(db);
  forgetKvLocations(db);
  return n;
}

/** Arrival (Unix ms) of the earliest-arriving request among the next 5,000 the job has not judged; null when none. */
export function oldestUnattributedArrival(db: Db): number | null {
  const v = db.$client
    .prepare("SELECT min(arrived_at) FROM (SELECT arrived_at FROM requests WHERE rowid > ? ORDER BY rowid LIMIT 5000)")
    .pluck()
    .get(cursorOf(db, "requests")) as number | null;
  return v ?? null;
}
