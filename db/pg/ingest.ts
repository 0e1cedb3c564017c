import type postgres from "postgres";
import type { IngestRow, IngestRowOf, ResolvePrefix } from "../rows/ingest";
import type { StoreStatus } from "../rows/ingest";
import { encodeHashes, HASH_BYTES } from "../codecs/chains";
import { rowOf } from "../ingest/rows";
import { requestHead } from "../ingest/request-rows";
import { registerClustersPg } from "./clusters";
import { idKey } from "../ingest/kv-rows";
import { pgTransaction, type PgDb } from "./client";
import { dayOf, ensurePartitions, forgetPartitions, PARTITIONED } from "./partitions";
import { CHAIN_BASE_LOCK, storedChainColumns, wholeChainsPg, type StoredChains } from "./chains";
import { forget, forgetRows, pickNamed, recentOf, remember, visibleBase, type HeldRequest } from "./recent-requests";
import { insertPlans, planParams, type InsertPlan, type Value } from "./rows";
import { writeRollupsPg } from "./rollups";
import { upsertWorkers } from "./workers";

// PostgreSQL's ingest: the structural rows SQLite's insertEvents takes, stored with one multi-row insert per table in
// one transaction per batch, idempotent by event id (and ts, where SQLite keys by both), then worker state and the
// rollups (db/pg/rollups.ts) of the accepted events.

export { forgetRecentRequests } from "./recent-requests";

const PLANS = insertPlans((table) => table in PARTITIONED);
/** Where a requests row holds chain_base. */
const CHAIN_BASE_AT = PLANS.request.columns.indexOf("chain_base");
const ID_AT = PLANS.request.columns.indexOf("id");
const EMPTY = Buffer.alloc(0);

export type PgStoreOptions = {
  /** Decides each request's prefix_of (server/ingest/prefix.ts); required when a request of the batch names one. */
  resolvePrefix?: ResolvePrefix;
  /** Runs last in the same transaction with the results (a write that must commit with the batch). */
  alsoInTransaction?: (tx: postgres.Sql, out: readonly StoreStatus[]) => Promise<void>;
};

/** A batch's turn to read what it names and build its rows: after the batches started before it did so. */
type Turn = {
  recent: Map<string, HeldRequest[]>;
  previous: Promise<void>;
  done: () => void;
  /** The requests the batch's rows hold, marked committed once its transaction is. */
  held: HeldRequest[];
  /** Run once the transaction has committed (the cluster names it registered are remembered). */
  committed: (() => void)[];
  sql: postgres.Sql;
};
const lastTurn = new WeakMap<postgres.Sql, Promise<void>>();

/**
 * Take a batch's turn, in call order (synchronously, before anything is awaited): its reads and row building wait
 * for the batches before it to have built theirs (and remembered their requests); inserts and commits still overlap.
 * The wait happens before a connection is taken, so waiting batches never hold the pool.
 */
function takeTurn(sql: postgres.Sql): Turn {
  const previous = lastTurn.get(sql) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  lastTurn.set(sql, mine);
  return { recent: recentOf(sql), previous, done, held: [], committed: [], sql };
}

/**
 * Store validated events in one transaction: accepted (new), duplicate (already stored, in this batch or before: by
 * id and ts for worker samples, decisions, tools, reasoning spans and KV events, by id alone for the other kinds, as
 * SQLite), or a request refused alone because its prefix_of names nothing usable. A prefix_of's request becomes the
 * row's chain base when its row is visible to the batch (db/pg/chains.ts), else the chains are stored whole. Throws
 * (nothing stored) when the database refuses any row.
 */
export async function insertEventsPg(
  pg: PgDb,
  events: readonly IngestRow[],
  options: PgStoreOptions = {},
): Promise<StoreStatus[]> {
  const sql = pg.$client;
  if (!options.resolvePrefix && events.some((e) => e.kind === "request" && e.prefix_of))
    throw new Error("insertEventsPg: a request names prefix_of but no resolvePrefix was given");
  const turn = takeTurn(sql);
  try {
    const days = new Set<number>();
    for (const e of events) if (PLANS[e.kind].partitioned) days.add(dayOf(e.ts));
    await ensurePartitions(sql, days);
    await turn.previous;
    let out: StoreStatus[];
    try {
      out = await pgTransaction(sql, (tx) => storeInTransaction(tx, turn, events, options));
    } catch (err) {
      // Another process may have dropped a partition this one remembered: make it again once, then give up.
      if ((err as { code?: string }).code !== "23514") throw err;
      forgetPartitions(sql);
      await ensurePartitions(sql, days);
      out = await pgTransaction(sql, (tx) => storeInTransaction(tx, turn, events, options));
    }
    for (const h of turn.held) h.committed = true;
    for (const f of turn.committed) f();
    return out;
  } finally {
    turn.done();
  }
}

/** What a stored row of the plan's table is known by, as its INSERT returns it (db/pg/rows.ts). */
function keyOf(plan: InsertPlan, e: IngestRow): string {
  const key = plan.key === "id_key" ? String(idKey(e.id)) : e.id;
  return plan.withTs ? `${key} ${e.ts}` : key;
}

async function storeInTransaction(
  tx: postgres.Sql,
  turn: Turn,
  events: readonly IngestRow[],
  { resolvePrefix: resolve, alsoInTransaction }: PgStoreOptions,
): Promise<StoreStatus[]> {
  const recent = turn.recent;
  const out: StoreStatus[] = new Array(events.length);
  const clusters = await registerClustersPg(turn.sql, tx, events);
  const held = await heldRequests(tx, events, recent);
  type Group = { index: number[]; values: Value[][] };
  const rows = new Map<InsertPlan, Group>();
  // Requests in runs of batch order, one statement each: a request naming a row of the run being built starts the
  // next run, so the row it names was inserted by an earlier statement of this transaction (visible to the join that
  // prepends its chains), and rows are still inserted in batch order (rid as SQLite's rowid).
  const runs = new Map<HeldRequest, number>();
  const requestGroups: Group[] = [];
  let run = 0;
  const inBatch = new Set<string>();
  const batchRequests = new Map<string, HeldRequest[]>();
  const laterIds = new Map<string, number>();
  events.forEach((e, i) => e.kind === "request" && laterIds.set(e.request_id, i));
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const refusal = e.cluster === undefined ? undefined : clusters.refused.get(e.cluster);
    if (refusal) {
      out[i] = { status: "rejected", code: "invalid_cluster", error: refusal };
      continue;
    }
    const plan = PLANS[e.kind];
    const key = `${plan.table}\u0000${keyOf(plan, e)}`;
    if (inBatch.has(key) || (e.kind === "request" && held.rowIds.has(e.id))) {
      out[i] = "duplicate";
      continue;
    }
    let row: Value[];
    if (e.kind !== "request") row = rowOf(e);
    else {
      const stored = requestRow(e, i, held.byRequestId, recent, batchRequests, laterIds, runs, resolve);
      if ("status" in stored) {
        out[i] = stored;
        continue;
      }
      const list = batchRequests.get(e.request_id) ?? [];
      list.push(stored.held);
      batchRequests.set(e.request_id, list);
      if (stored.namesRun === run) run++;
      runs.set(stored.held, run);
      inBatch.add(key);
      const group = (requestGroups[run] ??= { index: [], values: [] });
      group.index.push(i);
      group.values.push(stored.row);
      continue;
    }
    inBatch.add(key);
    let group = rows.get(plan);
    if (!group) rows.set(plan, (group = { index: [], values: [] }));
    group.index.push(i);
    group.values.push(row);
  }
  remember(recent, batchRequests);
  turn.held = [...batchRequests.values()].flat();
  turn.done();
  try {
    // Retention stores a base's dependents whole before deleting it, holding this lock alone (db/pg/chains.ts).
    if (requestGroups.some((g) => g.values.some((v) => v[CHAIN_BASE_AT] !== null)))
      await tx.unsafe(`SELECT pg_advisory_xact_lock_shared(${CHAIN_BASE_LOCK})`);
    // One connection runs them in this order: each run of requests after the rows it names as chain bases.
    const groups: [InsertPlan, Group][] = [
      ...rows,
      ...requestGroups.map((g): [InsertPlan, Group] => [PLANS.request, g]),
    ];
    const inserted = await Promise.all(
      groups.map(async ([plan, g]) => {
        const stored = await tx.unsafe<{ id: string; linked?: boolean }[]>(plan.sql, planParams(plan, g.values), {
          prepare: true,
        });
        const unlinked = new Set(stored.filter((r) => r.linked === false).map((r) => r.id));
        if (unlinked.size > 0) {
          // Read the named rows from the table next time (a batch sent again then finds them gone: unknown_prefix).
          const gone = g.values.filter((v) => unlinked.has(v[ID_AT] as string)).map((v) => v[CHAIN_BASE_AT] as string);
          forgetRows(recent, new Set(gone));
          throw new Error(
            "insertEventsPg: a request named by prefix_of was deleted while a turn extending it was stored",
          );
        }
        return { g: { ...g, plan }, ids: new Set(stored.map((r) => r.id)) };
      }),
    );
    for (const { g, ids } of inserted)
      for (const i of g.index) out[i] = ids.has(keyOf(g.plan, events[i]!)) ? "accepted" : "duplicate";
    // Row locks in one order (rollups serialize on their own lock, senders' rows after it), so batches never deadlock.
    await upsertWorkers(tx, events, out);
    await writeRollupsPg(tx, events, out);
    await alsoInTransaction?.(tx, out);
    turn.committed.push(clusters.commit);
    return out;
  } catch (err) {
    forget(recent, batchRequests);
    throw err;
  }
}

/**
 * Lookups by key planned at each call (an unnamed statement), not once: a statement's generic plan, made while the
 * table was small and not yet analyzed, read the whole table on every later call, so a burst of ingest slowed as it
 * grew (autovacuum analyzes at most once a minute). Planning these takes a fraction of a millisecond per batch.
 */
const CUSTOM = { prepare: false } as const;

/**
 * Requests of the batch already stored (by row id) and the stored requests its prefix_of lists name (by request_id).
 * A name a recent batch of this process holds from the same session and sender is not read: that row would be picked.
 */
async function heldRequests(
  tx: postgres.Sql,
  events: readonly IngestRow[],
  recent: Map<string, HeldRequest[]>,
): Promise<{ rowIds: Set<string>; byRequestId: Map<string, HeldRequest[]> }> {
  const ids: string[] = [];
  const named: string[] = [];
  for (const e of events)
    if (e.kind === "request") {
      ids.push(e.id);
      const p = e.prefix_of;
      const same = (r: HeldRequest) => r.sessionId === (e.session_id ?? null) && r.source === (e.source ?? null);
      if (p && !recent.get(p.request_id)?.some(same)) named.push(p.request_id);
    }
  const rowIds = new Set<string>();
  const byRequestId = new Map<string, HeldRequest[]>();
  if (ids.length === 0) return { rowIds, byRequestId };
  const existing = await tx.unsafe<{ id: string }[]>(
    "SELECT id FROM requests WHERE id = ANY($1::text[])",
    [ids],
    CUSTOM,
  );
  for (const r of existing) rowIds.add(r.id);
  if (named.length === 0) return { rowIds, byRequestId };
  const rows = await tx.unsafe<
    (StoredChains & { requestId: string; sessionId: string | null; source: string | null; arrivedAt: number })[]
  >(
    `SELECT ${storedChainColumns()}, request_id AS "requestId", session_id AS "sessionId", source,
      arrived_at AS "arrivedAt"
    FROM requests WHERE request_id = ANY($1::text[]) ORDER BY arrived_at, id`,
    [[...new Set(named)]],
    CUSTOM,
  );
  const whole = await wholeChainsPg(tx, rows);
  for (const r of rows) {
    const list = byRequestId.get(r.requestId) ?? [];
    list.push({
      rowId: r.id,
      sessionId: r.sessionId,
      source: r.source,
      arrivedAt: r.arrivedAt,
      seqCount: r.seqCount ?? 0,
      localCount: r.localCount,
      seq: whole.get(r.id)!.seq,
      local: whole.get(r.id)!.local,
      committed: true,
      base: null,
    });
    byRequestId.set(r.requestId, list);
  }
  return { rowIds, byRequestId };
}

/** A request's row with its chains whole, or why its prefix_of is refused. */
function requestRow(
  e: IngestRowOf<"request">,
  i: number,
  held: Map<string, HeldRequest[]>,
  recent: Map<string, HeldRequest[]>,
  batch: Map<string, HeldRequest[]>,
  laterIds: Map<string, number>,
  runs: ReadonlyMap<HeldRequest, number>,
  resolve: ResolvePrefix | undefined,
): { row: Value[]; held: HeldRequest; namesRun?: number } | Extract<StoreStatus, { status: "rejected" }> {
  const ownSeq = e.sequence_hashes === undefined ? null : encodeHashes(e.sequence_hashes);
  const ownLocal = e.local_hashes === undefined ? null : encodeHashes(e.local_hashes);
  let seq = ownSeq;
  let local = ownLocal;
  let base: HeldRequest["base"] = null;
  let namesRun: number | undefined;
  if (e.prefix_of) {
    const id = e.prefix_of.request_id;
    const named = pickNamed(e, held.get(id) ?? [], recent.get(id) ?? [], batch.get(id) ?? []);
    const r = resolve!(e, named, (laterIds.get(id) ?? -1) > i);
    if (!r.ok) return { status: "rejected", code: r.code, error: r.error };
    const n = named!;
    seq = Buffer.concat([(n.seq ?? EMPTY).subarray(0, r.shared * HASH_BYTES), seq ?? EMPTY]);
    if (local) local = Buffer.concat([(n.local ?? EMPTY).subarray(0, r.localShared * HASH_BYTES), local]);
    const b = visibleBase(n, id, r.shared, ownLocal ? r.localShared : 0, recent, batch, runs);
    if (b) ((base = b.base), (namesRun = runs.get(b.row)));
  }
  const seqCount = seq && seq.byteLength / HASH_BYTES;
  const localCount = local && local.byteLength / HASH_BYTES;
  return {
    namesRun,
    row:
      base === null
        ? [...requestHead(e), seq, local, null, 0, 0, seqCount, localCount, null]
        : [
            ...requestHead(e),
            seq!.subarray(base.shared * HASH_BYTES),
            local && local.subarray(base.localShared * HASH_BYTES),
            base.rowId,
            base.shared,
            base.localShared,
            seqCount,
            localCount,
            null,
          ],
    held: {
      rowId: e.id,
      sessionId: e.session_id ?? null,
      source: e.source ?? null,
      arrivedAt: e.arrived_at,
      seqCount: seqCount ?? 0,
      localCount,
      seq,
      local,
      committed: false,
      base,
    },
  };
}
