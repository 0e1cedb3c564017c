import type postgres from "postgres";
import type { CausesRow, RequestRow } from "../rows/attribution";
import { ChainMemo } from "../sqlite/chain-memo";
import { PG_ATTRIBUTION_CHAIN_MEMO_BYTES } from "../../lib/memory-bounds";
import { storedChainColumns, wholeChainsPg, type StoredChains } from "./chains";

// The rows the attribution job reads and writes on PostgreSQL (server/jobs/attribution-pg.ts decides): its inputs
// after its cursors, the state tables of pg migration 0009 and its outputs. Block and local keys travel as 16 hex
// digits (the i64's two's complement), so no 64-bit hash passes through a JS number. Rows in, rows out.

type Q = postgres.Sql | postgres.ReservedSql;

/** An array literal of numbers or nulls (one parameter, as db/pg/rows.ts builds them). */
export const numbers = (xs: readonly (number | null)[]) =>
  `{${xs.map((x) => (x === null ? "NULL" : String(x))).join(",")}}`;
export const texts = (xs: readonly string[]) => `{${xs.join(",")}}`;

/** The job's cursors and names: attr_state, attr_names, attr_clears. */
export async function attributionStatePg(q: Q): Promise<{
  cursors: Map<string, number>;
  names: { id: number; name: string }[];
  clears: { worker: number; at: number }[];
}> {
  const [state, names, clears] = await Promise.all([
    q<{ key: string; value: number }[]>`SELECT key, value FROM attr_state`,
    q<{ id: number; name: string }[]>`SELECT id, name FROM attr_names ORDER BY id`,
    q<{ worker: number; at: number }[]>`SELECT worker, at FROM attr_clears ORDER BY at, worker`,
  ]);
  return { cursors: new Map(state.map((r) => [r.key, r.value])), names: [...names], clears: [...clears] };
}

/**
 * The newest requests rid, kv_events seq and tools seq visible now, with the transaction ids this snapshot has not seen
 * finish (xmin) and the next one (xmax): rows numbered up to these are all visible once every transaction below xmax
 * has ended (a later snapshot's xmin ≥ this xmax).
 */
export async function insertionPointPg(
  q: Q,
): Promise<{ xmin: number; xmax: number; requests: number; kv: number; tools: number }> {
  const [r] = await q<{ xmin: number; xmax: number; requests: number; kv: number; tools: number }[]>`
    SELECT pg_snapshot_xmin(s)::text::int8 AS xmin, pg_snapshot_xmax(s)::text::int8 AS xmax,
      (SELECT coalesce(max(rid), 0) FROM requests) AS requests, (SELECT coalesce(max(seq), 0) FROM kv_events) AS kv,
      (SELECT coalesce(max(seq), 0) FROM tools) AS tools
    FROM pg_current_snapshot() s`;
  return r!;
}

/** A requests row as the job reads it: SQLite's job's row with the chains whole (8-byte big-endian hashes). */
export type PgRequestRow = RequestRow & { seq: Buffer | null; local: Buffer | null };

/** Whole chains the job built lately, per connection (a turn's base is most often a recent turn). */
const memos = new WeakMap<Q, ChainMemo>();

/** Up to `limit` requests with rid in (after, upTo], in rid order, their chains whole (db/pg/chains.ts). */
export async function requestsAfterPg(q: Q, after: number, upTo: number, limit: number): Promise<PgRequestRow[]> {
  const rows = await q.unsafe<(Omit<PgRequestRow, "seq" | "local"> & StoredChains)[]>(
    `SELECT rid, request_id AS "requestId", session_id AS "sessionId",
      trajectory_id AS "trajectoryId", worker_id AS "workerId", arrived_at AS "arrivedAt", first_token_at AS "firstTokenAt",
      finished_at AS "finishedAt", input_tokens AS "inputTokens", cached_tokens AS "cachedTokens",
      output_tokens AS "outputTokens", block_size AS "blockSize", ${storedChainColumns()}
    FROM requests WHERE rid > $1 AND rid <= $2 ORDER BY rid LIMIT $3`,
    [after, upTo, limit],
  );
  let memo = memos.get(q);
  if (!memo) memos.set(q, (memo = new ChainMemo(PG_ATTRIBUTION_CHAIN_MEMO_BYTES)));
  const whole = await wholeChainsPg(q, rows, memo);
  return rows.map(({ base: _b, seqShared: _s, localShared: _l, seqCount: _c, localCount: _n, ...r }) => ({
    ...r,
    ...whole.get(r.id)!,
  }));
}

export type PgKvRow = {
  seq: number;
  ts: number;
  op: string;
  workerId: string;
  hashes: Buffer | null;
  reason: string | null;
  tier: string | null;
};

/** Up to `limit` KV events with seq in (after, upTo], in insertion order. */
export async function kvEventsAfterPg(q: Q, after: number, upTo: number, limit: number): Promise<PgKvRow[]> {
  return q<PgKvRow[]>`SELECT seq, ts, op, worker_id AS "workerId", block_hashes AS hashes, reason, storage_tier AS tier
    FROM kv_events WHERE seq > ${after} AND seq <= ${upTo} ORDER BY seq LIMIT ${limit}`;
}

/** The largest kv_events seq in (fromSeq, toSeq] among events with ts ≤ upTo (Unix ms); null when none. */
export async function kvLastInRangePg(q: Q, fromSeq: number, toSeq: number, upTo: number): Promise<number | null> {
  const [r] = await q<{ m: number | null }[]>`SELECT max(seq) AS m FROM kv_events
    WHERE seq > ${fromSeq} AND seq <= ${toSeq} AND ts <= ${upTo}`;
  return r?.m ?? null;
}

/** The largest kv_events seq up to `toSeq` among events with ts in (after, upTo] (Unix ms); null when none. */
export async function kvLastInWindowPg(q: Q, after: number, upTo: number, toSeq: number): Promise<number | null> {
  const [r] = await q<{ m: number | null }[]>`SELECT max(seq) AS m FROM kv_events
    WHERE ts > ${after} AND ts <= ${upTo} AND seq <= ${toSeq}`;
  return r?.m ?? null;
}

/** Per request id: the chosen and the best candidate's overlap of its latest routing decision. */
export async function decisionsOfPg(
  q: Q,
  requestIds: readonly string[],
): Promise<Map<string, { chosenOverlap: number; bestOverlap: number }>> {
  if (requestIds.length === 0) return new Map();
  const rows = await q<{ requestId: string; chosenOverlap: number; bestOverlap: number }[]>`
    SELECT DISTINCT ON (request_id) request_id AS "requestId", chosen_overlap_blocks AS "chosenOverlap",
      best_overlap_blocks AS "bestOverlap"
    FROM route_decisions WHERE request_id = ANY(${texts([...new Set(requestIds)].map(quoted))}::text[])
    ORDER BY request_id, ts DESC`;
  return new Map(rows.map((r) => [r.requestId, { chosenOverlap: r.chosenOverlap, bestOverlap: r.bestOverlap }]));
}

const quoted = (v: string) => `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;

/**
 * For each (session, trajectory, before): the input tokens and finish time of the turn before it in the same session
 * and trajectory (the latest arrival before, the latest stored among equal arrivals), by index into `turns`.
 */
export async function previousTurnsPg(
  q: Q,
  turns: readonly { sessionId: string; trajectoryId: string | null; before: number }[],
): Promise<Map<number, { input: number; finishedAt: number | null }>> {
  if (turns.length === 0) return new Map();
  const rows = await q<{ i: number; input: number; finishedAt: number | null }[]>`
    SELECT u.i::int AS i, p.input_tokens AS input, p.finished_at AS "finishedAt"
    FROM unnest(${texts(turns.map((t) => quoted(t.sessionId)))}::text[],
      ${`{${turns.map((t) => (t.trajectoryId === null ? "NULL" : quoted(t.trajectoryId))).join(",")}}`}::text[],
      ${numbers(turns.map((t) => t.before))}::int8[]) WITH ORDINALITY AS u(s, tr, at, i)
    CROSS JOIN LATERAL (SELECT input_tokens, finished_at FROM requests
      WHERE session_id = u.s AND trajectory_id IS NOT DISTINCT FROM u.tr AND arrived_at < u.at
      ORDER BY arrived_at DESC, rid DESC LIMIT 1) p`;
  return new Map(rows.map((r) => [r.i - 1, { input: r.input, finishedAt: r.finishedAt }]));
}

/** The policy_versions column of the latest request arrived at or before t that carried one. */
export async function policyVersionsAtPg(q: Q, t: number): Promise<string | null> {
  const [r] = await q<{ v: string }[]>`SELECT policy_versions AS v FROM requests
    WHERE arrived_at <= ${t} AND policy_versions IS NOT NULL ORDER BY arrived_at DESC, rid DESC LIMIT 1`;
  return r?.v ?? null;
}

/**
 * The job's lookup of blocks by hash, one primary-key probe per key (a lateral subquery, which LIMIT keeps from being
 * flattened): the connection's prepared statement keeps a generic plan, and one made while attr_blocks was small and
 * not yet analyzed (a fresh database, a burst of ingest) was a hash join over the whole table on every call
 * (db/pg/ingest-plans.pg.test.ts).
 */
export const BLOCKS_BY_KEY = `SELECT lpad(to_hex(b.hash), 16, '0') AS h, b.intervals, b.first_at AS "firstAt"
  FROM unnest($1::text[]) AS u(h)
  CROSS JOIN LATERAL (SELECT hash, intervals, first_at FROM attr_blocks WHERE hash = ('x' || u.h)::bit(64)::int8 LIMIT 1) b`;

/** Stored intervals and first-seen marks of the blocks with these hex keys (absent: no row). */
export async function blocksInPg(
  q: Q,
  keys: readonly string[],
): Promise<Map<string, { intervals: Buffer | null; firstAt: number | null }>> {
  if (keys.length === 0) return new Map();
  const rows = await q.unsafe<{ h: string; intervals: Buffer | null; firstAt: number | null }[]>(
    BLOCKS_BY_KEY,
    [texts(keys)],
    {
      prepare: true,
    },
  );
  return new Map(rows.map((r) => [r.h, { intervals: r.intervals, firstAt: r.firstAt }]));
}

/** attr_local's first appearance (Unix ms) of these local hex keys (absent: no row). */
export async function localFirstAtsPg(q: Q, keys: readonly string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const rows = await q<{ h: string; firstAt: number }[]>`SELECT lpad(to_hex(hash), 16, '0') AS h, first_at AS "firstAt"
    FROM attr_local WHERE hash = ANY(SELECT ('x' || h)::bit(64)::int8 FROM unnest(${texts(keys)}::text[]) AS u(h))`;
  return new Map(rows.map((r) => [r.h, r.firstAt]));
}

/** Up to `limit` tool rows with seq in (after, upTo]: their seq and session. */
export async function toolsAfterPg(
  q: Q,
  after: number,
  upTo: number,
  limit: number,
): Promise<{ seq: number; sessionId: string }[]> {
  return q<{ seq: number; sessionId: string }[]>`SELECT seq, session_id AS "sessionId" FROM tools
    WHERE seq > ${after} AND seq <= ${upTo} ORDER BY seq LIMIT ${limit}`;
}

/** What one flush writes: changed blocks (intervals null: unchanged), new local marks, names, clears and cursors. */
export type PgFlush = {
  blocks: { key: string; intervals: Buffer | null; firstAt: number | null }[];
  locals: { key: string; firstAt: number }[];
  names: { id: number; name: string }[];
  clears: { worker: number; at: number }[];
  cursors: Map<string, number>;
};

/** Rows per statement of a flush. */
const FLUSH_ROWS = 5_000;

/** Write a flush (call inside a transaction: the cursors are saved with the state they stand for). */
export async function writeAttributionStatePg(tx: Q, f: PgFlush): Promise<void> {
  for (let i = 0; i < f.blocks.length; i += FLUSH_ROWS) {
    const b = f.blocks.slice(i, i + FLUSH_ROWS);
    await tx`INSERT INTO attr_blocks (hash, intervals, first_at)
      SELECT ('x' || h)::bit(64)::int8, decode(iv, 'hex'), fa
      FROM unnest(${texts(b.map((x) => x.key))}::text[],
        ${`{${b.map((x) => (x.intervals === null ? "NULL" : x.intervals.toString("hex"))).join(",")}}`}::text[],
        ${numbers(b.map((x) => x.firstAt))}::int8[]) AS u(h, iv, fa)
      ON CONFLICT (hash) DO UPDATE SET intervals = coalesce(excluded.intervals, attr_blocks.intervals),
        first_at = least(attr_blocks.first_at, excluded.first_at)`;
  }
  for (let i = 0; i < f.locals.length; i += FLUSH_ROWS) {
    const l = f.locals.slice(i, i + FLUSH_ROWS);
    await tx`INSERT INTO attr_local (hash, first_at)
      SELECT ('x' || h)::bit(64)::int8, fa FROM unnest(${texts(l.map((x) => x.key))}::text[],
        ${numbers(l.map((x) => x.firstAt))}::int8[]) AS u(h, fa)
      ON CONFLICT (hash) DO UPDATE SET first_at = least(attr_local.first_at, excluded.first_at)`;
  }
  for (const n of f.names)
    await tx`INSERT INTO attr_names (id, name) VALUES (${n.id}, ${n.name}) ON CONFLICT DO NOTHING`;
  for (const c of f.clears)
    await tx`INSERT INTO attr_clears (worker, at) VALUES (${c.worker}, ${c.at}) ON CONFLICT DO NOTHING`;
  for (const [key, value] of f.cursors)
    await tx`INSERT INTO attr_state (key, value) VALUES (${key}, ${value})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** A request_causes row: the same row SQLite's job stores. */
export type PgCausesRow = CausesRow;

/**
 * Store causes rows and add the new ones to their minute (minuteOf(row) gives its start, Unix ms); a row already there
 * is kept and not counted again. Returns the rids stored.
 */
export async function putCausesPg(
  tx: Q,
  rows: readonly PgCausesRow[],
  minuteOf: (t: number) => number,
): Promise<Set<number>> {
  if (rows.length === 0) return new Set();
  const reasons = `{${rows.map((r) => (r.evictedReason === null ? "NULL" : quoted(r.evictedReason))).join(",")}}`;
  const n = (f: (r: PgCausesRow) => number | null) => numbers(rows.map(f));
  const stored = await tx<{ rid: number }[]>`
    INSERT INTO request_causes (rid, arrived_at, recomputed, cold, diverged, evicted, routed_away, unknown,
      evicted_reason, retention_version, held_tokens, wait_ms, survived_tokens)
    SELECT * FROM unnest(${n((r) => r.rid)}::int8[], ${n((r) => r.arrivedAt)}::int8[], ${n((r) => r.recomputed)}::int4[],
      ${n((r) => r.cold)}::int4[], ${n((r) => r.diverged)}::int4[], ${n((r) => r.evicted)}::int4[],
      ${n((r) => r.routedAway)}::int4[], ${n((r) => r.unknown)}::int4[], ${reasons}::text[],
      ${n((r) => r.retentionVersion)}::int4[], ${n((r) => r.heldTokens)}::int8[], ${n((r) => r.waitMs)}::int8[],
      ${n((r) => r.survivedTokens)}::int8[])
    ON CONFLICT (rid) DO NOTHING RETURNING rid`;
  const rids = new Set(stored.map((r) => r.rid));
  const minutes = new Map<number, [number, number, number, number, number]>();
  for (const r of rows) {
    if (!rids.has(r.rid)) continue;
    const m = minuteOf(r.arrivedAt);
    const s = minutes.get(m) ?? [0, 0, 0, 0, 0];
    s[0] += r.cold;
    s[1] += r.diverged;
    s[2] += r.evicted;
    s[3] += r.routedAway;
    s[4] += r.unknown;
    minutes.set(m, s);
  }
  if (minutes.size === 0) return rids;
  const ms = [...minutes].sort((a, b) => a[0] - b[0]);
  const col = (k: number) => numbers(ms.map(([, s]) => s[k]!));
  await tx`INSERT INTO causes_1m (minute, cold, diverged, evicted, routed_away, unknown)
    SELECT * FROM unnest(${numbers(ms.map(([m]) => m))}::int8[], ${col(0)}::int8[], ${col(1)}::int8[], ${col(2)}::int8[],
      ${col(3)}::int8[], ${col(4)}::int8[])
    ON CONFLICT (minute) DO UPDATE SET cold = causes_1m.cold + excluded.cold,
      diverged = causes_1m.diverged + excluded.diverged, evicted = causes_1m.evicted + excluded.evicted,
      routed_away = causes_1m.routed_away + excluded.routed_away, unknown = causes_1m.unknown + excluded.unknown`;
  return rids;
}
