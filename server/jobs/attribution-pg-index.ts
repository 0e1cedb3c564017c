import {
  residencyOf,
  withRemoved,
  withStored,
  decodeIntervals,
  encodeIntervals,
  type Interval,
  type Residency,
} from "../../db/sqlite/attribution-intervals";
import { blocksInPg, localFirstAtsPg, type PgFlush } from "../../db/pg/attribution";
import type postgres from "postgres";
import { PG_ATTR_CACHE_BYTES } from "../../lib/memory-bounds";

// The attribution job's index on PostgreSQL (attribution-pg.ts runs it): the SQLite job's residency intervals and
// first-seen marks (db/sqlite/attribution-index.ts, attribution-seen.ts) with a simpler layout. Each block keeps its
// own interval list (no shared lists) and mark in one attr_blocks row; rows are read in one query per batch of KV
// events or turns, changed in memory, and written with the cursors they stand for in one transaction (flush). The same
// interval edits (attribution-intervals.ts) and the same reading of clears give the same residency as on SQLite.

type Q = postgres.Sql | postgres.ReservedSql;

const EMPTY: readonly Interval[] = [];
/** Keys per read of attr_blocks or attr_local. */
const READ_CHUNK = 5_000;

type Block = { iv: readonly Interval[]; ivDirty: boolean; firstAt: number | null; seenDirty: boolean };

/**
 * Heap bytes of what the index keeps read, estimated per entry as measured on Node 20 (a Map of 200,000 entries, after
 * a full collection): a block and its key about 135, each interval of its list about 100, a local hash's mark about 81.
 */
export const CACHE_BYTES = { block: 136, interval: 100, local: 82 } as const;

/** Where a block was resident at t, and its latest removal before t (the chosen worker's when it had one). */
export type PgResidency = Residency;

/** The 16 hex digits of the 8-byte hash at index k of a list. */
export const keyAt = (b: Buffer, k: number) => b.toString("hex", k * 8, k * 8 + 8);

export class PgIndex {
  names = new Map<string, number>();
  byId: string[] = [];
  clears = new Map<number, number[]>();
  private blocks = new Map<string, Block>();
  /** First appearance of local hashes: read from attr_local (null: none there) or marked, earliest kept. */
  private locals = new Map<string, number | null>();
  private localDirty = new Set<string>();
  private blocksDirty = new Set<string>();
  private newNames: { id: number; name: string }[] = [];
  private newClears: { worker: number; at: number }[] = [];
  cursors = { kv: 0, requests: 0, tools: 0 };
  /** Estimated heap bytes of the blocks (with their intervals) and of the local marks read (CACHE_BYTES). */
  private blockBytes = 0;
  private localBytes = 0;

  constructor(
    state: {
      cursors: Map<string, number>;
      names: { id: number; name: string }[];
      clears: { worker: number; at: number }[];
    },
    /** The cache's bound (estimated bytes): past it cacheFull() asks for a flush, and written() trims it. */
    private readonly maxBytes = PG_ATTR_CACHE_BYTES,
  ) {
    for (const n of state.names) {
      this.names.set(n.name, n.id);
      this.byId[n.id] = n.name;
    }
    for (const c of state.clears) this.clears.set(c.worker, [...(this.clears.get(c.worker) ?? []), c.at]);
    this.cursors = {
      kv: state.cursors.get("kv") ?? 0,
      requests: state.cursors.get("requests") ?? 0,
      tools: state.cursors.get("tools") ?? 0,
    };
  }

  /** Changed blocks and marks not written yet. */
  get dirty(): number {
    return this.blocksDirty.size + this.localDirty.size;
  }

  /** Estimated heap bytes of what is cached (CACHE_BYTES). */
  get cachedBytes(): number {
    return this.blockBytes + this.localBytes;
  }

  /** Past the bound: flush (written() then trims what is cached). */
  cacheFull(): boolean {
    return this.cachedBytes > this.maxBytes;
  }

  /** Blocks and local marks in memory. */
  get cachedEntries(): { blocks: number; locals: number } {
    return { blocks: this.blocks.size, locals: this.locals.size };
  }

  /** The name's id (created on first use); -1 when `create` is false and it is unknown. */
  nameId(name: string, create = true): number {
    const id = this.names.get(name);
    if (id !== undefined || !create) return id ?? -1;
    const next = this.byId.length === 0 ? 1 : this.byId.length;
    this.names.set(name, next);
    this.byId[next] = name;
    this.newNames.push({ id: next, name });
    return next;
  }

  /** Read the rows of blocks not in memory yet (keys as 16 hex digits). */
  async load(q: Q, keys: Iterable<string>): Promise<void> {
    const missing = [...new Set([...keys].filter((k) => !this.blocks.has(k)))];
    for (let i = 0; i < missing.length; i += READ_CHUNK) {
      const chunk = missing.slice(i, i + READ_CHUNK);
      const found = await blocksInPg(q, chunk);
      for (const k of chunk) {
        const r = found.get(k);
        const iv = r?.intervals ? decodeIntervals(r.intervals) : EMPTY;
        this.blocks.set(k, { iv, ivDirty: false, firstAt: r?.firstAt ?? null, seenDirty: false });
        this.blockBytes += CACHE_BYTES.block + iv.length * CACHE_BYTES.interval;
      }
    }
  }

  /** Read the first appearances of local hashes not in memory yet. */
  async loadLocal(q: Q, keys: Iterable<string>): Promise<void> {
    const missing = [...new Set([...keys].filter((k) => !this.locals.has(k)))];
    for (let i = 0; i < missing.length; i += READ_CHUNK) {
      const chunk = missing.slice(i, i + READ_CHUNK);
      const found = await localFirstAtsPg(q, chunk);
      for (const k of chunk) this.locals.set(k, found.get(k) ?? null);
      this.localBytes += chunk.length * CACHE_BYTES.local;
    }
  }

  private block(key: string): Block {
    const b = this.blocks.get(key);
    if (!b) throw new Error(`attribution index: block ${key} was not loaded`);
    return b;
  }

  private edit(key: string, f: (l: readonly Interval[]) => readonly Interval[]): void {
    const b = this.block(key);
    const next = f(b.iv);
    if (next === b.iv) return;
    this.blockBytes += (next.length - b.iv.length) * CACHE_BYTES.interval;
    b.iv = next;
    b.ivDirty = true;
    this.blocksDirty.add(key);
  }

  /** A kv.stored of these blocks (loaded) on worker w at ts. */
  stored(keys: readonly string[], w: number, ts: number): void {
    for (const k of keys) this.edit(k, (l) => withStored(l, w, ts));
  }

  /** A kv.removed of these blocks (loaded) on worker w at ts for reason `why`. */
  removed(keys: readonly string[], w: number, ts: number, why: number): void {
    for (const k of keys) this.edit(k, (l) => withRemoved(l, w, ts, why, (v) => this.endOf(v) === null));
  }

  /** A kv.cleared of worker w at ts: closes, on read, its intervals open and stored at or before ts. */
  cleared(w: number, ts: number): void {
    this.nameId("cleared");
    const at = this.clears.get(w) ?? [];
    if (at.includes(ts)) return;
    this.newClears.push({ worker: w, at: ts });
    this.clears.set(
      w,
      [...at, ts].sort((a, b) => a - b),
    );
  }

  /** An interval with a later clear of its worker applied: when and why it ended, or null while resident. */
  endOf(v: Interval): { at: number; why: number } | null {
    if (v.removedAt !== null) return { at: v.removedAt, why: v.why };
    if (this.clears.size === 0) return null;
    for (const at of this.clears.get(v.w) ?? [])
      if (at >= v.storedAt) return { at, why: this.names.get("cleared") ?? -1 };
    return null;
  }

  /** What the index knew about a (loaded) block at t, for a turn on workerId (null: no worker). */
  residencyAt(key: string, t: number, workerId: string | null): PgResidency {
    const chosen = workerId === null ? -2 : this.nameId(workerId, false);
    return residencyOf(this.block(key).iv, t, chosen, this.byId, this.clears.size > 0 ? (v) => this.endOf(v) : null);
  }

  /** When a (loaded) block was first cacheable (marks not written included), or undefined when never. */
  seenFirstAt(key: string): number | undefined {
    return this.block(key).firstAt ?? undefined;
  }

  /** Record that a (loaded) block was cacheable at `at` (the earliest time is kept). */
  markSeen(key: string, at: number): void {
    const b = this.block(key);
    if (b.firstAt !== null && b.firstAt <= at) return;
    b.firstAt = at;
    b.seenDirty = true;
    this.blocksDirty.add(key);
  }

  /** Whether a (loaded) local hash appeared in a prompt before t. */
  localSeenBefore(key: string, t: number): boolean {
    const at = this.locals.get(key);
    return at !== undefined && at !== null && at < t;
  }

  /** Record that a local hash (loaded) appeared in a prompt at `at` (the earliest time is kept). */
  markLocal(key: string, at: number): void {
    const cur = this.locals.get(key);
    if (cur !== undefined && cur !== null && cur <= at) return;
    this.locals.set(key, at);
    this.localDirty.add(key);
  }

  /** What a flush writes now (with the cursors); call written() once it committed. */
  flush(): PgFlush {
    const blocks: PgFlush["blocks"] = [];
    for (const k of [...this.blocksDirty].sort()) {
      const b = this.blocks.get(k)!;
      blocks.push({
        key: k,
        intervals: b.ivDirty ? encodeIntervals(b.iv) : null,
        firstAt: b.seenDirty ? b.firstAt : null,
      });
    }
    const locals = [...this.localDirty].sort().map((k) => ({ key: k, firstAt: this.locals.get(k)! }));
    return {
      blocks,
      locals,
      names: [...this.newNames],
      clears: [...this.newClears],
      cursors: new Map(Object.entries(this.cursors)),
    };
  }

  /**
   * After a flush committed: nothing is dirty. Past the bound, the blocks and marks read first are dropped (they are all
   * written) down to three quarters of it, from whichever of the two holds more.
   */
  written(): void {
    for (const k of this.blocksDirty) {
      const b = this.blocks.get(k)!;
      b.ivDirty = false;
      b.seenDirty = false;
    }
    this.blocksDirty.clear();
    this.localDirty.clear();
    this.newNames = [];
    this.newClears = [];
    if (!this.cacheFull()) return;
    const target = Math.floor((this.maxBytes * 3) / 4);
    const blocks = this.blocks.entries();
    const locals = this.locals.keys();
    while (this.cachedBytes > target) {
      if (this.blockBytes >= this.localBytes) {
        const next = blocks.next();
        if (next.done) break;
        const [k, b] = next.value;
        this.blocks.delete(k);
        this.blockBytes -= CACHE_BYTES.block + b.iv.length * CACHE_BYTES.interval;
      } else {
        const next = locals.next();
        if (next.done) break;
        this.locals.delete(next.value);
        this.localBytes -= CACHE_BYTES.local;
      }
    }
  }
}
