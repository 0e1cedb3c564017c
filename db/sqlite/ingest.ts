import type { IngestRow, PrefixCode, ResolvePrefix } from "../rows/ingest";
import { chainColumns } from "./ingest-chains";
import type { EncodedChains } from "./ingest-chains";
import { hashListBytes } from "../codecs/chains";
import { forgetChains, requestRowExists } from "./chains";
import type { CounterSample } from "../../lib/counters";
import { addSample, flushStats, MinuteRollups, noteSeen } from "../ingest/rollups";
import type { Rollup, Statements } from "../ingest/rollups";
import { isBusy, type Db } from "./client";
import { TierRollups } from "../ingest/tiers";
import { REQUEST_INSERT, rowOf, tables } from "../ingest/rows";
import { opt, type Row } from "../ingest/row-values";
import { requestHead } from "../ingest/request-rows";
import { statements } from "./ingest-statements";
import { kvRowTemplate } from "../ingest/kv-rows";
import { compactKvRow } from "./ingest-kv";
import { forgetKvLocations, kvListBatch, kvRowStored } from "./kv-lists";
import { forgetClusters, registerCluster } from "./clusters";
import { yieldToWriters } from "./write-intent";
import type { StoreStatus } from "../rows/ingest";

// The ingest hot path: plain prepared statements in one synchronous transaction per batch.

export type StoreOptions = {
  /** Decides each request's prefix_of (server/ingest/prefix.ts); required when a request of the batch names one. */
  resolvePrefix?: ResolvePrefix;
  /** Runs last in the same transaction with the results (a write that must commit with the batch). */
  alsoInTransaction?: (out: readonly StoreStatus[]) => void;
  /**
   * When the write lock is held by another connection, retry taking it every LOCK_RETRY_MS for up to this long
   * before the batch fails busy (default 0: the connection's busy_timeout alone). A connection with busy_timeout 0
   * (the ingest workers) then takes the lock within a fraction of a millisecond of its release, where SQLite's busy
   * handler sleeps 1, 2, 5, 10, ... 100 ms between tries and leaves the lock idle while a batch waits.
   */
  lockWaitMs?: number;
};

const LOCK_RETRY_MS = 0.25;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** request_id → index of its last request event in the batch (only built when some request names a prefix). */
function requestIndexes(events: readonly IngestRow[]): Map<string, number> | null {
  if (!events.some((e) => e.kind === "request" && e.prefix_of)) return null;
  const m = new Map<string, number>();
  events.forEach((e, i) => e.kind === "request" && m.set(e.request_id, i));
  return m;
}

/**
 * A batch with the work done that needs nothing from the store (prepareEvents): the rows of kinds stored as they are,
 * and every hash list encoded. An ingest thread builds it before its write turn, so only what depends on the store
 * (duplicates, chain bases, KV list references) runs while the other threads wait for the write lock.
 */
export type PreparedBatch = {
  readonly events: readonly IngestRow[];
  /**
   * Per event: its row when it needs nothing from the store; a request's columns before its chains; a KV event's row
   * without its block list columns (kvRowTemplate; set in the write turn).
   */
  readonly rows: readonly (Row | null)[];
  /** Per event: a KV event's block list encoded, else null. */
  readonly lists: readonly (Buffer | null)[];
  /** Per event: a request's chains encoded, else null. */
  readonly chains: readonly (EncodedChains | null)[];
  readonly positions: Map<string, number> | null;
};

/** A list as its bytes: lifted lists (server/ingest/lift-hashes.ts) come with them. */
const encodedOrNull = (v: readonly string[] | undefined) => (v === undefined ? null : hashListBytes(v));

/** Everything of insertEvents' work on a batch that reads and writes nothing (pure; run it before the write turn). */
export function prepareEvents(events: readonly IngestRow[]): PreparedBatch {
  const n = events.length;
  const rows: (Row | null)[] = new Array(n);
  const lists: (Buffer | null)[] = new Array(n);
  const chains: (EncodedChains | null)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    rows[i] = null;
    lists[i] = null;
    chains[i] = null;
    if (e.kind === "kv.stored" || e.kind === "kv.removed") {
      lists[i] = hashListBytes(e.block_hashes);
      rows[i] = kvRowTemplate(e);
    } else if (e.kind === "request") {
      rows[i] = requestHead(e);
      chains[i] = { seq: encodedOrNull(e.sequence_hashes), local: encodedOrNull(e.local_hashes) };
    } else rows[i] = rowOf(e);
  }
  return { events, rows, lists, chains, positions: requestIndexes(events) };
}

const isPrepared = (v: readonly IngestRow[] | PreparedBatch): v is PreparedBatch => !Array.isArray(v);

/**
 * Store validated events in one transaction: raw rows, worker state and per-minute rollups.
 * Returns per event whether it was new, its id was already stored (a duplicate changes nothing), or it was refused
 * (a request whose prefix_of names nothing usable; the rest of the batch is stored). `alsoInTransaction` runs last in
 * the same transaction with those results (a write that must commit with the batch and never wait for the lock alone).
 * `batch` is the events, or prepareEvents' batch of them (the same rows are stored either way).
 */
export function insertEvents(
  db: Db,
  batch: readonly IngestRow[] | PreparedBatch,
  options: StoreOptions = {},
): StoreStatus[] {
  const sqlite = db.$client;
  const st = statements(sqlite);
  const prepared = isPrepared(batch) ? batch : prepareEvents(batch);
  const resolve = options.resolvePrefix;
  if (prepared.positions && !resolve)
    throw new Error("insertEvents: a request names prefix_of but no resolvePrefix was given");
  try {
    const deadline = performance.now() + (options.lockWaitMs ?? 0);
    for (;;) {
      const began = { yes: false };
      // A writer on the dashboard's event loop waiting for the lock goes first (write-intent.ts).
      yieldToWriters();
      try {
        return store(db, st, prepared, resolve, options.alsoInTransaction, began);
      } catch (err) {
        // Only BEGIN IMMEDIATE found the lock taken: nothing ran, so the batch simply tries again.
        if (began.yes || !isBusy(err) || performance.now() >= deadline) throw err;
        Atomics.wait(pause, 0, 0, LOCK_RETRY_MS);
      }
    }
  } catch (err) {
    forgetChains(db);
    forgetKvLocations(db);
    forgetClusters(db);
    throw err;
  }
}

function store(
  db: Db,
  st: Statements,
  batch: PreparedBatch,
  resolve: ResolvePrefix | undefined,
  alsoInTransaction: ((out: readonly StoreStatus[]) => void) | undefined,
  began: { yes: boolean },
): StoreStatus[] {
  const sqlite = db.$client;
  // IMMEDIATE: take the write lock up front, so concurrent writers wait (busy_timeout) instead of failing an upgrade.
  return sqlite
    .transaction(() => {
      began.yes = true;
      try {
        return kvListBatch(db, () => storeInTransaction(db, st, batch, resolve, alsoInTransaction));
      } catch (err) {
        // While the write lock is still held: a location map shared with other ingest threads forgets rows rolled back.
        forgetKvLocations(db);
        throw err;
      }
    })
    .immediate();
}

function storeInTransaction(
  db: Db,
  st: Statements,
  { events, rows, lists, chains: encoded, positions }: PreparedBatch,
  resolve: ResolvePrefix | undefined,
  alsoInTransaction: ((out: readonly StoreStatus[]) => void) | undefined,
): StoreStatus[] {
  const out: StoreStatus[] = new Array(events.length);
  const rollups = new Map<string, Rollup & { w: string; m: number }>();
  const counters = new Map<string, CounterSample | undefined>();
  const seen = new Map<string, { first: number; last: number; kvTotal: number }>();
  const minutes = new MinuteRollups();
  const tiers = new TierRollups(st.tiers);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const t = tables[e.kind];
    if (e.cluster !== undefined) {
      const problem = registerCluster(db, e.cluster, e.ts);
      if (problem) {
        out[i] = { status: "rejected", code: "invalid_cluster", error: problem };
        continue;
      }
    }
    let row: Row;
    if (e.kind === "kv.stored" || e.kind === "kv.removed") row = compactKvRow(db, e, lists[i], rows[i]);
    else if (e.kind !== "request") row = rows[i]!;
    else {
      if (requestRowExists(db, e.id)) {
        out[i] = "duplicate";
        continue;
      }
      const chains = chainColumns(db, e, (rid) => (positions?.get(rid) ?? -1) > i, resolve!, encoded[i] ?? undefined);
      if (!chains.ok) {
        out[i] = { status: "rejected", code: chains.code, error: chains.error };
        continue;
      }
      row = [...rows[i]!, ...chains.columns, chains.seqRefs];
    }
    const info = st.inserts.get(e.kind === "request" ? REQUEST_INSERT : t.sql)!.run(row);
    if (info.changes === 0) {
      out[i] = "duplicate";
      continue;
    }
    out[i] = "accepted";
    if (e.kind === "worker.stats") {
      noteSeen(seen, e.worker_id, e.ts, e.kv_total_blocks);
      addSample(rollups, counters, st, e);
    } else if (e.kind === "worker.up") {
      st.workerUp.run(e.worker_id, e.role, e.model, e.block_size, e.kv_total_blocks, e.ts, e.ts, e.ts);
    } else if (e.kind === "worker.down") {
      st.workerDown.run(e.worker_id, e.ts, e.ts, e.ts, opt(e.reason));
    } else if (e.kind === "request") {
      minutes.addRequest(e);
      tiers.addRequest(e);
    } else if (e.kind === "kv.stored" || e.kind === "kv.removed" || e.kind === "kv.cleared") {
      if (e.kind !== "kv.cleared") kvRowStored(db, info.lastInsertRowid);
      tiers.addKv(e);
    } else if (e.kind === "route.decision") {
      minutes.addDecision(e);
    }
  }
  minutes.flush(st);
  tiers.flush();
  flushStats(rollups, st);
  for (const [w, c] of counters) if (c) st.counterPut.run(w, c.ts, c.query, c.hit);
  for (const [w, s] of seen) st.workerSeen.run(w, s.kvTotal, s.first, s.last);
  alsoInTransaction?.(out);
  return out;
}
