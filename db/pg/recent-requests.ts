import type postgres from "postgres";
import type { IngestRowOf, NamedRequest } from "../rows/ingest";
import type { PgDb } from "./client";
import { PG_RECENT_REQUESTS } from "../../lib/memory-bounds";

// The requests PostgreSQL's ingest (db/pg/ingest.ts) remembers from its recent batches, and how a turn's prefix_of
// picks among them and finds the chain base its row may name.

/**
 * A request whose chains a later prefix_of may extend, with its whole chains. `committed`: its row is in the table
 * for every later statement to see (read from it, or its batch committed), so a later row naming it stores its own
 * hashes only, with this row as its chain base (db/pg/chains.ts).
 */
export type HeldRequest = NamedRequest & {
  seq: Buffer | null;
  local: Buffer | null;
  committed: boolean;
  /** The row this one's stored form names as its chain base (request and row id), and how many hashes it shares. */
  base: { requestId: string; rowId: string; shared: number; localShared: number } | null;
};

/**
 * Requests this process's recent batches stored or are storing (request_id → rows, oldest first), so a batch in
 * flight beside the one holding the request its prefix_of names still finds it: a row naming a request not yet
 * committed is stored whole, so it never depends on the earlier committing. Bounded; a batch that fails takes its
 * requests out again.
 */
const RECENT_LIMIT = PG_RECENT_REQUESTS;
const recentBySql = new WeakMap<postgres.Sql, Map<string, HeldRequest[]>>();

export function recentOf(sql: postgres.Sql): Map<string, HeldRequest[]> {
  let m = recentBySql.get(sql);
  if (!m) recentBySql.set(sql, (m = new Map()));
  return m;
}

/** Forget the recent batches' requests (after rows were deleted behind this process's back, e.g. between tests). */
export function forgetRecentRequests(pg: PgDb): void {
  recentBySql.delete(pg.$client);
}

export function remember(recent: Map<string, HeldRequest[]>, batch: Map<string, HeldRequest[]>): void {
  for (const [id, rows] of batch) {
    const list = recent.get(id);
    if (list) list.push(...rows);
    else recent.set(id, [...rows]);
  }
  for (const id of recent.keys()) {
    if (recent.size <= RECENT_LIMIT) break;
    recent.delete(id);
  }
}

/** Forget recent requests by row id (rows found deleted). */
export function forgetRows(recent: Map<string, HeldRequest[]>, rowIds: ReadonlySet<string>): void {
  for (const [id, rows] of recent) {
    const kept = rows.filter((r) => !rowIds.has(r.rowId));
    if (kept.length === rows.length) continue;
    if (kept.length) recent.set(id, kept);
    else recent.delete(id);
  }
}

export function forget(recent: Map<string, HeldRequest[]>, batch: Map<string, HeldRequest[]>): void {
  for (const [id, rows] of batch) {
    const kept = (recent.get(id) ?? []).filter((r) => !rows.includes(r));
    if (kept.length) recent.set(id, kept);
    else recent.delete(id);
  }
}

/**
 * The request a prefix_of names, as SQLite picks it: the newest with this request_id from the same session and sender,
 * else the newest at all; rows of recent batches, then of this one, count as newer than rows read from the table.
 */
export function pickNamed(
  e: IngestRowOf<"request">,
  held: readonly HeldRequest[],
  recent: readonly HeldRequest[],
  batch: readonly HeldRequest[],
): HeldRequest | null {
  const same = (r: HeldRequest) => r.sessionId === (e.session_id ?? null) && r.source === (e.source ?? null);
  const inTable = new Set(held.map((r) => r.rowId));
  const all = [...held, ...recent.filter((r) => !inTable.has(r.rowId)), ...batch];
  return all.findLast(same) ?? all.at(-1) ?? null;
}

/**
 * The row a turn extending `named` (sharing its first `shared` / `localShared` hashes) may name as its chain base
 * (db/pg/chains.ts): one its statement sees, in the table or inserted by an earlier statement of this transaction.
 * A named row of another batch still in flight is not; then its own base, and so on, sharing the least of the counts
 * on the way. Null: none (the turn is stored whole).
 */
export function visibleBase(
  named: HeldRequest,
  namedRequestId: string,
  shared: number,
  localShared: number,
  recent: Map<string, HeldRequest[]>,
  batch: Map<string, HeldRequest[]>,
  runs: ReadonlyMap<HeldRequest, number>,
): { row: HeldRequest; base: NonNullable<HeldRequest["base"]> } | null {
  let row = named;
  let requestId = namedRequestId;
  for (let steps = 0; !row.committed && !runs.has(row); steps++) {
    const b = row.base;
    // Held ones only: what a row names is looked up, never kept by reference (that would keep every ancestor alive).
    const next = b && steps < MAX_BASE_STEPS ? heldRow(b.requestId, b.rowId, recent, batch) : undefined;
    if (!next || !b) return null;
    shared = Math.min(shared, b.shared);
    localShared = Math.min(localShared, b.localShared);
    row = next;
    requestId = b.requestId;
  }
  return { row, base: { requestId, rowId: row.rowId, shared, localShared } };
}

/** How many in-flight rows visibleBase passes at most before storing a turn whole. */
const MAX_BASE_STEPS = 8;

const heldRow = (
  requestId: string,
  rowId: string,
  recent: Map<string, HeldRequest[]>,
  batch: Map<string, HeldRequest[]>,
): HeldRequest | undefined =>
  batch.get(requestId)?.find((r) => r.rowId === rowId) ?? recent.get(requestId)?.find((r) => r.rowId === rowId);
