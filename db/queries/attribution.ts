import type Database from "better-sqlite3";
import { attributeTurn, recomputedBlocks, type Attribution, type BlockFacts, type TurnInput } from "../../server/analysis/attribution";
import { minuteOf } from "../../server/analysis/counters";
import { decodeHashes } from "../../server/ingest/chain-codec";
import { chainStringsOf } from "./chains";
import type { Db } from "../client";

// Reads and writes of the attribution job's index tables (db/schema/sessions.ts). Never called from ingest.

/** A u64 decimal hash as the signed 64-bit integer SQLite stores. */
export const toKey = (h: string): bigint => BigInt.asIntN(64, BigInt(h));

type Stmts = ReturnType<typeof prepare>;
const cache = new WeakMap<Database.Database, Stmts>();

function prepare(c: Database.Database) {
  return {
    getState: c.prepare("SELECT value FROM attr_state WHERE key = ?").pluck(),
    setState: c.prepare("INSERT INTO attr_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
    kvAfter: c.prepare("SELECT rowid AS rid, ts, op, worker_id AS workerId, block_hashes AS hashes, reason FROM kv_events WHERE rowid > ? ORDER BY rowid LIMIT ?"),
    blockOpen: c.prepare("INSERT INTO attr_blocks (hash, worker_id, stored_at) VALUES (?, ?, ?)"),
    blockClose: c.prepare(
      `UPDATE attr_blocks SET removed_at = @ts, reason = @reason WHERE id = (SELECT id FROM attr_blocks WHERE hash = @hash AND worker_id = @w AND removed_at IS NULL AND stored_at <= @ts ORDER BY stored_at DESC LIMIT 1)`,
    ),
    blockClear: c.prepare("UPDATE attr_blocks SET removed_at = ?, reason = 'cleared' WHERE removed_at IS NULL AND worker_id = ? AND stored_at <= ?"),
    seen: c.prepare("INSERT INTO attr_seen (hash, first_at) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET first_at = min(first_at, excluded.first_at)"),
    local: c.prepare("INSERT INTO attr_local (hash, first_at) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET first_at = min(first_at, excluded.first_at)"),
    blocksOf: c.prepare("SELECT worker_id AS workerId, stored_at AS storedAt, removed_at AS removedAt, reason FROM attr_blocks WHERE hash = ?"),
    seenAt: c.prepare("SELECT first_at FROM attr_seen WHERE hash = ?").pluck(),
    localIn: c.prepare(`SELECT hash FROM attr_local WHERE hash IN (${Array(64).fill("?").join(",")}) AND first_at < ?`).pluck().safeIntegers(),
    requestsAfter: c.prepare(
      `SELECT rowid AS rid, id, request_id AS requestId, session_id AS sessionId, trajectory_id AS trajectoryId, worker_id AS workerId, arrived_at AS arrivedAt,
         first_token_at AS firstTokenAt, finished_at AS finishedAt, input_tokens AS inputTokens, cached_tokens AS cachedTokens, output_tokens AS outputTokens,
         block_size AS blockSize
       FROM requests WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    ),
    decision: c.prepare("SELECT chosen_overlap_blocks AS chosenOverlap, best_overlap_blocks AS bestOverlap FROM route_decisions WHERE request_id = ? ORDER BY ts DESC LIMIT 1"),
    previousTurn: c.prepare(
      `SELECT input_tokens AS input, finished_at AS finishedAt FROM requests WHERE session_id = ? AND trajectory_id IS ? AND arrived_at < ? ORDER BY arrived_at DESC LIMIT 1`,
    ),
    versionAt: c.prepare("SELECT policy_versions FROM requests WHERE arrived_at <= ? AND policy_versions IS NOT NULL ORDER BY arrived_at DESC LIMIT 1").pluck(),
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
    toolsAfter: c.prepare("SELECT rowid AS rid, session_id AS sessionId FROM tools WHERE rowid > ? ORDER BY rowid LIMIT ?"),
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

/** Apply up to `limit` KV events after the cursor to the residency index; returns how many were read. */
export function applyKvEvents(db: Db, limit: number): number {
  const s = stmts(db);
  const rows = s.kvAfter.all(cursorOf(db, "kv"), limit) as { rid: number; ts: number; op: string; workerId: string; hashes: Uint8Array | string | null; reason: string | null }[];
  for (const r of rows) {
    if (r.op === "cleared") s.blockClear.run(r.ts, r.workerId, r.ts);
    for (const h of decodeHashes(r.hashes)) {
      const hash = toKey(h);
      if (r.op === "stored") {
        s.blockOpen.run(hash, r.workerId, r.ts);
      } else if (r.op === "removed") s.blockClose.run({ hash, w: r.workerId, ts: r.ts, reason: r.reason ?? "unknown" });
    }
  }
  const last = rows[rows.length - 1];
  if (last) s.setState.run("kv", last.rid);
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
  return stmts(db).requestsAfter.all(cursorOf(db, "requests"), limit) as RequestRow[];
}

type BlockRow = { workerId: string; storedAt: number; removedAt: number | null; reason: string | null };

/** What the index knew about one block at time t (see BlockFacts). */
function factsAt(s: Stmts, seqKey: bigint, localKey: bigint | null, t: number, workerId: string | null): BlockFacts {
  const rows = s.blocksOf.all(seqKey) as BlockRow[];
  const residentOn: string[] = [];
  let removal: BlockRow | null = null;
  for (const r of rows) {
    if (r.storedAt <= t && (r.removedAt === null || r.removedAt > t)) residentOn.push(r.workerId);
    else if (r.removedAt !== null && r.removedAt <= t) {
      const mine = Number(r.workerId === workerId) - Number(removal?.workerId === workerId);
      const better = !removal || mine > 0 || (mine === 0 && r.removedAt > (removal.removedAt ?? 0));
      if (better) removal = r;
    }
  }
  const seenAt = s.seenAt.get(seqKey) as number | undefined;
  return {
    residentOn,
    seenBefore: seenAt !== undefined && seenAt < t,
    lastRemoval: removal ? { reason: removal.reason ?? "unknown", at: removal.removedAt ?? t, workerId: removal.workerId } : null,
    localSeenBefore: localKey === null ? null : false,
  };
}

const CHUNK = 64;

/** Which of `keys` have a local hash first seen before t (one IN query per 64 keys). */
function localSeen(db: Db, keys: readonly bigint[], t: number): Set<bigint> {
  const s = stmts(db);
  const out = new Set<bigint>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    while (chunk.length < CHUNK) chunk.push(chunk[0]!);
    for (const h of s.localIn.all(...chunk, t) as bigint[]) out.add(h);
  }
  return out;
}

/**
 * The first block in [lo, hi) whose sequence hash was not cacheable before t. Sequence hashes chain their prefix, so
 * "seen" is prefix-closed and a binary search finds the boundary in a few lookups.
 */
function firstUnseen(s: Stmts, keys: readonly bigint[], lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = s.seenAt.get(keys[mid]!) as number | undefined;
    if (at !== undefined && at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Attribute one request's misses, record its new blocks as seen, and store its causes and minute sums. */
export function attributeRequest(db: Db, r: RequestRow): Attribution {
  const s = stmts(db);
  const { seq, local } = chainStringsOf(db, r.id);
  const decision = (s.decision.get(r.requestId) as { chosenOverlap: number; bestOverlap: number } | undefined) ?? null;
  const turn: TurnInput = { inputTokens: r.inputTokens, cachedTokens: r.cachedTokens, blockSize: r.blockSize, blockCount: seq.length, workerId: r.workerId, decision };
  const { first, end } = recomputedBlocks(turn);
  const hasLocal = local.length === seq.length;
  const seqKeys: bigint[] = [];
  for (let i = first; i < end; i++) seqKeys.push(toKey(seq[i]!));
  const boundary = firstUnseen(s, seqKeys, 0, seqKeys.length, r.arrivedAt);
  const facts: BlockFacts[] = [];
  for (let k = 0; k < boundary; k++) facts.push(factsAt(s, seqKeys[k]!, null, r.arrivedAt, r.workerId));
  const localKeys: bigint[] = [];
  if (hasLocal) for (let i = first + boundary; i < end; i++) localKeys.push(toKey(local[i]!));
  const known = hasLocal ? localSeen(db, localKeys, r.arrivedAt) : new Set<bigint>();
  for (let k = boundary; k < seqKeys.length; k++) {
    const lk = hasLocal ? localKeys[k - boundary]! : null;
    facts.push({ residentOn: [], seenBefore: false, lastRemoval: null, localSeenBefore: lk === null ? null : known.has(lk) });
  }
  const cacheableAt = r.firstTokenAt ?? r.finishedAt ?? r.arrivedAt;
  for (let k = boundary; k < seqKeys.length; k++) {
    s.seen.run(seqKeys[k]!, cacheableAt);
    const lk = localKeys[k - boundary];
    if (lk !== undefined && !known.has(lk)) s.local.run(lk, r.arrivedAt);
  }
  const a = attributeTurn(turn, facts);
  let retentionVersion: number | null = null;
  if (a.mainRemoval) {
    const pv = s.versionAt.get(a.mainRemoval.at) as string | undefined;
    const v = pv ? (JSON.parse(pv) as { retention?: unknown }).retention : undefined;
    retentionVersion = typeof v === "number" ? v : null;
  }
  const prev = r.sessionId ? (s.previousTurn.get(r.sessionId, r.trajectoryId, r.arrivedAt) as { input: number; finishedAt: number | null } | undefined) : undefined;
  const c = a.tokens;
  s.putCauses.run({
    id: r.id, requestId: r.requestId, sessionId: r.sessionId, arrivedAt: r.arrivedAt, recomputed: a.recomputed, cold: c.cold, diverged: c.diverged,
    evicted: c.evicted, routedAway: c.routed_away, unknown: c.unknown, evictedReason: a.mainRemoval?.reason ?? (c.evicted > 0 ? "unknown" : null), retentionVersion,
    heldTokens: prev ? prev.input : null, waitMs: prev?.finishedAt ? Math.max(0, r.arrivedAt - prev.finishedAt) : null,
    survivedTokens: prev ? Math.min(r.cachedTokens, prev.input) : null,
  });
  s.putMinute.run({ minute: minuteOf(r.arrivedAt), cold: c.cold, diverged: c.diverged, evicted: c.evicted, routedAway: c.routed_away, unknown: c.unknown });
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

/** Drop index rows older than cutoff (Unix ms): closed residency, first-seen marks; keeps resident blocks. */
export function pruneIndex(db: Db, cutoff: number): number {
  const c = db.$client;
  let n = c.prepare("DELETE FROM attr_blocks WHERE removed_at IS NOT NULL AND removed_at < ?").run(cutoff).changes;
  n += c.prepare("DELETE FROM attr_seen WHERE first_at < ? AND hash NOT IN (SELECT hash FROM attr_blocks WHERE removed_at IS NULL)").run(cutoff).changes;
  n += c.prepare("DELETE FROM attr_local WHERE first_at < ?").run(cutoff).changes;
  return n;
}
