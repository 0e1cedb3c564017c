import type Database from "better-sqlite3";
import type { Db } from "./client";
import { decodePolicyVersions } from "../codecs/request-json";
import { flushIndex, dropEmptyBlocks, pruneDone, pruneLists } from "./attribution-index";
import { flushSeen, forgetSeen, requestsDone, seenEpoch } from "./attribution-seen";
import { forgetKvLocations } from "./kv-lists";
import { attrBlocks, attrLocal, FIRST_AT, LIST } from "./attribution-packed";
import { BEFORE_BUCKETS, type PackedKeys, type Value } from "./packed-keys";
import type { RequestRow, CausesRow } from "../rows/attribution";

// Reads and writes of the attribution job's index tables (db/sqlite/schema/sessions.ts). Never called from ingest.

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
      "SELECT rowid AS rid, ts, op, worker_id AS workerId, block_hashes AS hashes, block_refs AS refs, reason, storage_tier AS tier FROM kv_events WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
    ),
    kvMaxRowid: c.prepare("SELECT coalesce(max(rowid), 0) FROM kv_events").pluck(),
    kvLastInWindow: c.prepare("SELECT max(rowid) FROM kv_events WHERE ts > ? AND ts <= ?").pluck(),
    // +ts: scan the rowid range (rows inserted since the last look), not the whole of the (ts, id_key) index up to the time.
    kvLastInRange: c.prepare("SELECT max(rowid) FROM kv_events WHERE rowid > ? AND rowid <= ? AND +ts <= ?").pluck(),
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
      `INSERT INTO request_causes (rid, arrived_at, recomputed, cold, diverged, evicted, routed_away, unknown, evicted_reason, retention_version,
         held_tokens, wait_ms, survived_tokens) VALUES (@rid, @arrivedAt, @recomputed, @cold, @diverged, @evicted, @routedAway, @unknown,
         @evictedReason, @retentionVersion, @heldTokens, @waitMs, @survivedTokens) ON CONFLICT(rid) DO NOTHING`,
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

/** A kv_events row as the job reads it (hashes and refs as stored; blockBytesOf decodes them). */
export type KvEventRow = {
  rid: number;
  ts: number;
  op: string;
  workerId: string;
  hashes: string | null;
  refs: Uint8Array | null;
  reason: string | null;
  tier: string | null;
};

/** Up to `limit` KV events with kv_events rowid in (after, upTo], in insertion order. */
export function kvEventsAfter(db: Db, after: number, limit: number, upTo = Number.MAX_SAFE_INTEGER): KvEventRow[] {
  return stmts(db).kvAfter.all(after, upTo, limit) as KvEventRow[];
}

/** The largest kv_events rowid (0 when empty). */
export function kvMaxRowid(db: Db): number {
  return stmts(db).kvMaxRowid.get() as number;
}

/** The largest kv_events rowid among events with ts in (after, upTo] (Unix ms), through the (ts, id_key) index; null when none. */
export function kvLastInWindow(db: Db, after: number, upTo: number): number | null {
  return stmts(db).kvLastInWindow.get(after, upTo) as number | null;
}

/** The largest kv_events rowid in (fromRid, toRid] among events with ts ≤ upTo (Unix ms); null when none. */
export function kvLastInRange(db: Db, fromRid: number, toRid: number, upTo: number): number | null {
  return stmts(db).kvLastInRange.get(fromRid, toRid, upTo) as number | null;
}

/** Requests after the job's cursor, in insertion order. */
export function requestsAfterCursor(db: Db, limit: number): RequestRow[] {
  return stmts(db).requestsAfter.all(requestsDone(db), limit) as RequestRow[];
}

/** The chosen and the best candidate's overlap of a request's latest routing decision, or null without one. */
export function decisionOf(db: Db, requestId: string): { chosenOverlap: number; bestOverlap: number } | null {
  return (stmts(db).decision.get(requestId) as { chosenOverlap: number; bestOverlap: number } | undefined) ?? null;
}

/** The input tokens and finish time of the turn before `before` in the same session and trajectory, if any. */
export function previousTurnOf(
  db: Db,
  sessionId: string,
  trajectoryId: string | null,
  before: number,
): { input: number; finishedAt: number | null } | undefined {
  return stmts(db).previousTurn.get(sessionId, trajectoryId, before) as
    { input: number; finishedAt: number | null } | undefined;
}

/** The policy_versions JSON of the latest request arrived at or before t that carried one. */
export function policyVersionsAt(db: Db, t: number): string | undefined {
  return decodePolicyVersions((stmts(db).versionAt.get(t) as string | undefined) ?? null) ?? undefined;
}

/** Store a request's causes and add them to their minute (minute start, Unix ms); a row already there is kept and not counted again. */
export function putCauses(db: Db, row: CausesRow, minute: number): boolean {
  const s = stmts(db);
  if (s.putCauses.run(row).changes === 0) return false;
  s.putMinute.run({
    minute,
    cold: row.cold,
    diverged: row.diverged,
    evicted: row.evicted,
    routedAway: row.routedAway,
    unknown: row.unknown,
  });
  return true;
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

/** Buckets of attr_blocks or attr_local rewritten per transaction by a prune. */
const BUCKETS_PER_PRUNE = 256;

/**
 * Drop index rows older than cutoff (Unix ms), one short transaction each batch: flushes and lists `batch` rows at a
 * time, blocks and marks BUCKETS_PER_PRUNE buckets at a time. Returns rows (lists, blocks, marks) changed.
 */
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
  for (let at: number | null = BEFORE_BUCKETS; at !== null;) {
    const r = c.transaction(() => dropEmptyBlocks(db, at!, BUCKETS_PER_PRUNE))();
    n += r.changed;
    at = r.next;
  }
  // Blocks that point to no list keep their row for their mark; both go when the mark is older than the cutoff.
  const before = cutoff - seenEpoch(db);
  const blocks = attrBlocks(c);
  const local = attrLocal(c);
  const keep: [PackedKeys, (v: Value[]) => Value[] | null][] = [
    [blocks, (v) => (v[LIST] === 0 && (v[FIRST_AT] === null || v[FIRST_AT]! < before) ? null : v)],
    [local, (v) => (v[0]! < before ? null : v)],
  ];
  for (const [p, f] of keep)
    for (let at: number | null = BEFORE_BUCKETS; at !== null;) {
      const r = c.transaction(() => p.rewrite(at!, BUCKETS_PER_PRUNE, f))();
      n += r.changed;
      at = r.next;
    }
  pruneDone(db);
  forgetSeen(db);
  forgetKvLocations(db);
  return n;
}

/**
 * The earliest `arrived_at` or `ts` (Unix ms) among the next 5,000 requests the job has not judged; null when none.
 * A request event is sent when the turn ends (its ts), so `ts` is about when the row was stored: the job's lag counts
 * from there, not from the turn's arrival, which lies a whole turn (often 10 s or more) before the row existed.
 */
export function oldestUnattributed(db: Db, column: "arrived_at" | "ts"): number | null {
  const v = db.$client
    .prepare(`SELECT min(${column}) FROM (SELECT ${column} FROM requests WHERE rowid > ? ORDER BY rowid LIMIT 5000)`)
    .pluck()
    .get(cursorOf(db, "requests")) as number | null;
  return v ?? null;
}
