// One worker's KV block pool: cached blocks keyed by sequence hash, reference counts for running
// requests, eviction by retention priority then least recently used, TTL expiry, pins and
// lifecycle triggers. Each block's state is one record in a single typed array (block-records.ts,
// no object per block); the cluster-wide prefix index (prefix-index.ts) tells the router which
// workers hold a hash.

import type { HashList, PrefixIndex } from "./prefix-index";
import type { OwnedBlocks } from "./owned-blocks";
import { TtlHeap } from "./ttl-heap";
import * as records from "./block-records";
import { blockRecords, EvictionLists } from "./block-records";
import { ClassTable } from "./block-classes";
import { BlockList } from "./block-list";
import type { RemovedHashes } from "./removed-hashes";
import { AGENT_END, CAPACITY, OFFLOADED, RemovalLog, SESSION_END, TTL, type RemovalReason } from "./removal-log";

// The record layout's offsets and flag bits as constants of this module: the loops below read them millions of times
// an hour, and a loader that links imported names as getters (tsx and Vitest do) would make each read a call. The
// bundle production runs links them directly either way.
const { REC, ENTRY, REF, GEN, FLAGS, PINNED, HAS_TTL, TTL_QUEUED, CLASS_SHIFT, KEEP_ON_CLASS, MAX_CLASS_IDS } = records;

export const EVICT_NEVER = 0;
export const EVICT_AGENT_END = 1;
export const EVICT_SESSION_END = 2;
/** Block indexes fit 22 bits (generation counters take the other bits of an owned-block ref). */
export const MAX_POOL_BLOCKS = 1 << 22;
const GEN_MOD = 2 ** 30;

export type RetentionClass = {
  name: string;
  priority: number;
  ttlMs: number;
  pin: boolean;
  evictOn: number;
  /** Where evicted blocks go below device (tier-pool.ts), for how long (0: until that tier needs room), and whether a waiting agent's blocks are prefetched back. */
  offload?: { to: "host" | "disk" | "shared"; ttlMs: number } | null;
  prefetch?: boolean;
};
export type { RemovalReason };
/** Takes a block evicted for capacity or TTL to a lower tier; true when it did (the removal's reason is then `offloaded`). */
export type Offloader = (hash: string, cls: RetentionClass) => boolean;

export { OwnedBlocks } from "./owned-blocks";

/** What an owner holds once its blocks are taken back (never handed out: its pool is null then, see blockList). */
const NO_BLOCKS = new BlockList();
const REASON_INDEX: Record<RemovalReason, number> = {
  capacity: CAPACITY,
  ttl: TTL,
  agent_end: AGENT_END,
  session_end: SESSION_END,
  offloaded: OFFLOADED,
};

export class BlockPool {
  /** Cached blocks in this pool. */
  cached = 0;
  /** Blocks reserved for prefill in progress and decode output (counted as used, not cached). */
  reserved = 0;
  /** Cached blocks with ref > 0. */
  referenced = 0;
  pinnedCount = 0;
  readonly bit: number;
  /** Block records (REC int32 each). */
  private rec: Int32Array;
  /** The classes of this pool's blocks by the id each record keeps in its flags word. */
  private classes: ClassTable;
  private unused: Int32Array;
  private unusedTop: number;
  /** Unreferenced, unpinned cached blocks in eviction order. */
  private lru: EvictionLists;
  /** TTL deadlines: at most one entry per block, re-checked against the last release when due. */
  private ttl: TtlHeap;
  private releasedAt: Float64Array;
  /** Removed hashes since the last drain, by reason. */
  private removed = new RemovalLog();
  /** Lower tiers of this worker (null: device only, the removal goes by its own reason). */
  offload: Offloader | null = null;
  /** Told the class of every block removed, as it leaves (the policy preview counts evictions by class with it). */
  onRemove: ((cls: RetentionClass) => void) | null = null;

  constructor(
    readonly capacity: number,
    readonly index: PrefixIndex,
    readonly slot: number,
  ) {
    if (capacity > MAX_POOL_BLOCKS) throw new Error(`at most ${MAX_POOL_BLOCKS} blocks per worker`);
    this.bit = 1 << slot;
    this.rec = blockRecords(capacity);
    this.lru = new EvictionLists(this.rec);
    this.ttl = new TtlHeap(capacity);
    this.releasedAt = new Float64Array(capacity);
    this.classes = new ClassTable(() => this.classIdsInUse());
    this.unused = new Int32Array(capacity);
    for (let i = 0; i < capacity; i++) this.unused[i] = capacity - 1 - i;
    this.unusedTop = capacity;
  }

  get used(): number {
    return this.cached + this.reserved;
  }

  /** Blocks in use by requests (the kv_active_blocks of worker.stats). */
  get active(): number {
    return this.referenced + this.reserved;
  }

  /** Blocks makeRoom could still provide: free slots plus unreferenced, unpinned cached blocks. */
  get spare(): number {
    return this.capacity - this.used + this.lru.size;
  }

  /** Leading blocks of hashes[0..n) present in this pool. */
  match(hashes: readonly string[], n: number): number {
    let i = 0;
    while (i < n && (this.index.maskOf(hashes[i]!) & this.bit) !== 0) i++;
    return i;
  }

  /** Retention class of a cached hash (for tests and reports), or null. */
  classOf(hash: string): RetentionClass | null {
    const id = this.index.lookup(hash);
    if (id < 0 || (this.index.maskAt(id) & this.bit) === 0) return null;
    return this.classOfBlock(this.index.blockAt(id, this.slot));
  }

  /** Make room for `count` more blocks, evicting if needed; false if referenced/pinned blocks leave no room. */
  makeRoom(count: number): boolean {
    if (count > this.capacity) return false;
    while (this.capacity - this.used < count) {
      const victim = this.lru.lowest();
      if (victim < 0) return false;
      this.remove(victim, "capacity");
    }
    return true;
  }

  /**
   * Reference the leading cached blocks of hashes[0..n) (block indexes into `out`); returns how many. With `owner`,
   * the blocks its last request held here for the same view are checked by generation first (no index lookups).
   */
  acquirePrefix(
    list: HashList,
    n: number,
    classes: readonly RetentionClass[],
    segments: readonly number[],
    out: BlockList,
    owner?: OwnedBlocks,
  ): number {
    const index = this.index;
    const ids = this.classes.idsOf(classes);
    let i = 0;
    if (owner && owner.heldPool === this && owner.heldView === list && (out.length === 0 || out === owner.heldBlocks)) {
      const held = owner.heldBlocks;
      const heldIds = held.ids;
      const gens = owner.heldGens;
      const inPlace = out === held;
      const m = Math.min(n, held.length);
      owner.heldPool = null;
      owner.heldBlocks = NO_BLOCKS;
      const rec = this.rec;
      for (; i < m; i++) {
        const b = heldIds[i]!;
        if (rec[b * REC + ENTRY]! < 0 || rec[b * REC + GEN] !== gens[i]) break;
        this.touch(b, ids[segments[i]!]!);
        if (!inPlace) out.push(b);
      }
      if (inPlace && out.length !== i) out.length = i;
    }
    for (; i < n; i++) {
      const id = index.idAt(list, i);
      if (id < 0 || (index.maskAt(id) & this.bit) === 0) break;
      const b = index.slotBlocks[this.slot]![id]!;
      this.touch(b, ids[segments[i]!]!);
      out.push(b);
    }
    return i;
  }

  /**
   * Cache blocks hashes[from..to) computed by a request, referenced by it; returns how many are new, their positions
   * written to created[0…] (a scratch list the caller reuses: its length may be larger).
   */
  store(
    list: HashList,
    from: number,
    to: number,
    classes: readonly RetentionClass[],
    segments: readonly number[],
    out: BlockList,
    created: number[],
    owned: OwnedBlocks,
  ): number {
    const index = this.index;
    const rec = this.rec;
    const ids = this.classes.idsOf(classes);
    let n = 0;
    for (let i = from; i < to; i++) {
      const id = index.ensureAt(list, i);
      const c = ids[segments[i]!]!;
      let b: number;
      if ((index.maskAt(id) & this.bit) !== 0) {
        b = index.slotBlocks[this.slot]![id]!;
        this.touch(b, c);
      } else {
        b = this.unused[--this.unusedTop]!;
        const o = b * REC;
        const gen = (rec[o + GEN]! + 1) & (GEN_MOD - 1);
        rec[o + ENTRY] = id;
        rec[o + REF] = 1;
        rec[o + GEN] = gen;
        rec[o + FLAGS] = (rec[o + FLAGS]! & KEEP_ON_CLASS) | this.classes.bits[c]!;
        this.referenced++;
        this.cached++;
        index.add(id, this.bit, this.slot, b);
        this.applyPin(b, c);
        created[n++] = i;
        owned.add(this, b, gen);
      }
      out.push(b);
    }
    return n;
  }

  /**
   * Drop a request's references, tail first so that a prefix outlives its continuation under LRU. With `owner`, the
   * list is kept as what its trajectory last held here for `view` (see acquirePrefix); the caller must not reuse it.
   */
  release(list: BlockList, now: number, owner?: OwnedBlocks, view?: HashList): void {
    const blocks = list.ids;
    let gens: Int32Array | null = null;
    if (owner && view && list.length) {
      if (owner.heldGens.length < list.length)
        owner.heldGens = new Int32Array(Math.max(list.length, 2 * owner.heldGens.length));
      gens = owner.heldGens;
      owner.heldPool = this;
      owner.heldView = view;
      // The list it held before is no request's (acquirePrefix takes a held list over and clears it): its array is free.
      if (owner.heldBlocks !== list) owner.heldBlocks.recycle();
      owner.heldBlocks = list;
    }
    const rec = this.rec;
    const lru = this.lru;
    let unreferenced = 0;
    for (let i = list.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      const o = b * REC;
      if (gens) gens[i] = rec[o + GEN]!;
      const ref = rec[o + REF]! - 1;
      rec[o + REF] = ref;
      if (ref > 0) continue;
      unreferenced++;
      const flags = rec[o + FLAGS]!;
      if ((flags & PINNED) === 0) lru.link(b);
      // Only expire() reads the release time, of a block whose class (the one it was released under: a class changes
      // only while the block is referenced) has a TTL.
      if ((flags & HAS_TTL) === 0) continue;
      this.releasedAt[b] = now;
      if ((flags & TTL_QUEUED) === 0) {
        this.ttl.push(now + this.classes.byId[flags >>> CLASS_SHIFT]!.ttlMs, b);
        // Read again: link() has set the record's LINKED bit since.
        rec[o + FLAGS] = rec[o + FLAGS]! | TTL_QUEUED;
      }
    }
    this.referenced -= unreferenced;
  }

  /** The list a request of `owner` collects its blocks of `list` in: the blocks its trajectory last held here for that view (acquirePrefix keeps the valid ones in place), else `fallback`. */
  blockList(owner: OwnedBlocks, list: HashList, fallback: BlockList): BlockList {
    return owner.heldPool === this && owner.heldView === list && fallback.length === 0 ? owner.heldBlocks : fallback;
  }

  /** Remove unreferenced blocks whose TTL (counted from their last release) ran out by `now`. */
  expire(now: number): void {
    const heap = this.ttl;
    while (heap.peekTime() <= now) {
      const b = heap.pop();
      const o = b * REC;
      this.rec[o + FLAGS] = this.rec[o + FLAGS]! & ~TTL_QUEUED;
      if (this.rec[o + ENTRY]! < 0 || this.rec[o + REF]! > 0) continue;
      const ttl = this.classOfBlock(b).ttlMs;
      if (ttl <= 0) continue;
      const due = this.releasedAt[b]! + ttl;
      if (due <= now) this.remove(b, "ttl");
      else {
        heap.push(due, b);
        this.rec[o + FLAGS] = this.rec[o + FLAGS]! | TTL_QUEUED;
      }
    }
  }

  /** Lifecycle trigger on an owned-block ref: evict it if still the same block, unreferenced, and its class evicts on this event. */
  evictOnEnd(ref: number, trigger: "agent_end" | "session_end"): boolean {
    const b = Math.floor(ref / GEN_MOD);
    const o = b * REC;
    if (this.rec[o + ENTRY]! < 0 || this.rec[o + GEN] !== ref % GEN_MOD || this.rec[o + REF] !== 0) return false;
    const evictOn = this.classOfBlock(b).evictOn;
    const fires = trigger === "agent_end" ? evictOn === EVICT_AGENT_END : evictOn !== EVICT_NEVER;
    if (fires) this.remove(b, trigger);
    return fires;
  }

  /** Drop everything (the worker left); returns the number of cached blocks dropped. */
  clear(): number {
    const n = this.cached;
    const rec = this.rec;
    for (let b = 0; b < this.capacity; b++) {
      const o = b * REC;
      rec[o + FLAGS] = rec[o + FLAGS]! & ~TTL_QUEUED;
      const id = rec[o + ENTRY]!;
      if (id < 0) continue;
      this.index.drop(id, this.bit);
      rec[o + ENTRY] = -1;
    }
    this.cached = this.referenced = this.pinnedCount = 0;
    this.lru.clear();
    this.ttl.clear();
    return n;
  }

  /** Take the removed hashes collected so far, by reason, as strings. */
  drainRemoved(): [RemovalReason, string[]][] {
    return this.drainRemovedHashes().map(([reason, hashes]) => [reason, hashes.strings()]);
  }

  /** Keep removed hashes for kv.removed events, or (false: nobody takes them) only how many left for each reason. */
  keepRemovedHashes(keep: boolean): void {
    this.removed.keepHashes = keep;
  }

  /** Take how many blocks were removed since the last drain, by reason in REASONS order (when keepRemovedHashes(false)). */
  drainRemovedCounts(): [RemovalReason, number][] {
    return this.removed.drainCounts();
  }

  /** Take the removed hashes collected so far, by reason (no string made per hash). */
  drainRemovedHashes(): [RemovalReason, RemovedHashes][] {
    return this.removed.drain();
  }

  /** Reference cached block b for a request whose class for it has id c (the block takes that class). */
  private touch(b: number, c: number): void {
    const rec = this.rec;
    const o = b * REC;
    const ref = rec[o + REF]!;
    if (ref === 0) {
      this.referenced++;
      if (this.lru.has(b)) this.lru.unlink(b);
    }
    rec[o + REF] = ref + 1;
    const flags = rec[o + FLAGS]!;
    if (flags >>> CLASS_SHIFT !== c) {
      if (flags & PINNED) this.pinnedCount--;
      rec[o + FLAGS] = (flags & KEEP_ON_CLASS & ~PINNED) | this.classes.bits[c]!;
      this.applyPin(b, c);
    }
  }

  /** Pin block b if its class (id c) pins and pins hold less than half the pool. */
  private applyPin(b: number, c: number): void {
    if (this.classes.pin[c] === 1 && this.pinnedCount < this.capacity / 2) {
      this.rec[b * REC + FLAGS] = this.rec[b * REC + FLAGS]! | PINNED;
      this.pinnedCount++;
    }
  }

  /** The class of cached block b. */
  private classOfBlock(b: number): RetentionClass {
    return this.classes.byId[this.rec[b * REC + FLAGS]! >>> CLASS_SHIFT]!;
  }

  /** Per class id, 1 when a cached block has it (the class table reclaims the others' ids). */
  private classIdsInUse(): Uint8Array {
    const used = new Uint8Array(MAX_CLASS_IDS);
    const rec = this.rec;
    for (let o = 0; o < this.capacity * REC; o += REC)
      if (rec[o + ENTRY]! >= 0) used[rec[o + FLAGS]! >>> CLASS_SHIFT] = 1;
    return used;
  }

  private remove(b: number, reason: RemovalReason): void {
    const rec = this.rec;
    const o = b * REC;
    if (this.lru.has(b)) this.lru.unlink(b);
    const flags = rec[o + FLAGS]!;
    if (flags & PINNED) this.pinnedCount--;
    rec[o + FLAGS] = flags & ~PINNED;
    const id = rec[o + ENTRY]!;
    const off =
      this.offload !== null &&
      (reason === "capacity" || reason === "ttl") &&
      this.offload(this.index.hashOf(id), this.classOfBlock(b));
    this.index.logRemoval(this.removed, off ? OFFLOADED : REASON_INDEX[reason], id);
    if (this.onRemove !== null) this.onRemove(this.classOfBlock(b));
    this.index.drop(id, this.bit);
    rec[o + ENTRY] = -1;
    this.cached--;
    this.unused[this.unusedTop++] = b;
  }
}
