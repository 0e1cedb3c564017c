// One worker's KV block pool: cached blocks keyed by sequence hash, reference counts for running
// requests, eviction by retention priority then least recently used, TTL expiry, pins and
// lifecycle triggers. State lives in typed arrays indexed by block slot (no object per block);
// the cluster-wide prefix index (prefix-index.ts) tells the router which workers hold a hash.

import { MAX_SLOTS, type HashList, type PrefixIndex } from "./prefix-index";
import type { OwnedBlocks } from "./owned-blocks";
import { TtlHeap } from "./ttl-heap";

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
export type RemovalReason = "capacity" | "ttl" | "agent_end" | "session_end" | "offloaded";
/** Takes a block evicted for capacity or TTL to a lower tier; true when it did (the removal's reason is then `offloaded`). */
export type Offloader = (hash: string, cls: RetentionClass) => boolean;

export { OwnedBlocks } from "./owned-blocks";

const PRIORITIES = 101;
const NOTHING_REMOVED: [RemovalReason, string[]][] = [];

export class BlockPool {
  /** Cached blocks in this pool. */
  cached = 0;
  /** Blocks reserved for prefill in progress and decode output (counted as used, not cached). */
  reserved = 0;
  /** Cached blocks with ref > 0. */
  referenced = 0;
  pinnedCount = 0;
  readonly bit: number;
  private entry: Int32Array;
  private ref: Int32Array;
  private gen: Int32Array;
  private prev: Int32Array;
  private next: Int32Array;
  private bucket: Int16Array;
  private pinned: Uint8Array;
  private cls: RetentionClass[];
  private unused: Int32Array;
  private unusedTop: number;
  private heads = new Int32Array(PRIORITIES).fill(-1);
  /** No free-list bucket below this priority is non-empty. */
  private lowHint = PRIORITIES;
  private tails = new Int32Array(PRIORITIES).fill(-1);
  private evictable = 0;
  /** TTL deadlines: at most one entry per block, re-checked against the last release when due. */
  private ttl: TtlHeap;
  private releasedAt: Float64Array;
  private ttlQueued: Uint8Array;
  /** Removed hashes since the last drain, by reason. */
  private removed: Record<RemovalReason, string[]> = {
    capacity: [],
    ttl: [],
    agent_end: [],
    session_end: [],
    offloaded: [],
  };
  private removedCount = 0;
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
    this.entry = new Int32Array(capacity).fill(-1);
    this.ref = new Int32Array(capacity);
    this.ttl = new TtlHeap(capacity);
    this.releasedAt = new Float64Array(capacity);
    this.ttlQueued = new Uint8Array(capacity);
    this.gen = new Int32Array(capacity);
    this.prev = new Int32Array(capacity).fill(-1);
    this.next = new Int32Array(capacity).fill(-1);
    this.bucket = new Int16Array(capacity).fill(-1);
    this.pinned = new Uint8Array(capacity);
    this.cls = new Array<RetentionClass>(capacity);
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
    return this.capacity - this.used + this.evictable;
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
    if (id < 0 || (this.index.mask[id]! & this.bit) === 0) return null;
    return this.cls[this.index.blockOf[id * MAX_SLOTS + this.slot]!]!;
  }

  /** Make room for `count` more blocks, evicting if needed; false if referenced/pinned blocks leave no room. */
  makeRoom(count: number): boolean {
    if (count > this.capacity) return false;
    while (this.capacity - this.used < count) {
      const victim = this.lowest();
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
    out: number[],
    owner?: OwnedBlocks,
  ): number {
    const index = this.index;
    let i = 0;
    if (owner && owner.heldPool === this && owner.heldView === list && (out.length === 0 || out === owner.heldBlocks)) {
      const held = owner.heldBlocks;
      const gens = owner.heldGens;
      const inPlace = out === held;
      const m = Math.min(n, held.length);
      owner.heldPool = null;
      owner.heldBlocks = [];
      for (; i < m; i++) {
        const b = held[i]!;
        if (this.entry[b]! < 0 || this.gen[b] !== gens[i]) break;
        this.touch(b, classes[segments[i]!]!);
        if (!inPlace) out.push(b);
      }
      if (inPlace) out.length = i;
    }
    for (; i < n; i++) {
      const id = index.idAt(list, i);
      if (id < 0 || (index.mask[id]! & this.bit) === 0) break;
      const b = index.blockOf[id * MAX_SLOTS + this.slot]!;
      this.touch(b, classes[segments[i]!]!);
      out.push(b);
    }
    return i;
  }

  /** Cache blocks hashes[from..to) computed by a request, referenced by it; `created` gets the new ones' positions. */
  store(
    list: HashList,
    from: number,
    to: number,
    classes: readonly RetentionClass[],
    segments: readonly number[],
    out: number[],
    created: number[],
    owned: OwnedBlocks,
  ): void {
    const index = this.index;
    for (let i = from; i < to; i++) {
      const id = index.ensureAt(list, i);
      const cls = classes[segments[i]!]!;
      let b: number;
      if ((index.mask[id]! & this.bit) !== 0) {
        b = index.blockOf[id * MAX_SLOTS + this.slot]!;
        this.touch(b, cls);
      } else {
        b = this.unused[--this.unusedTop]!;
        this.entry[b] = id;
        this.ref[b] = 1;
        this.gen[b] = (this.gen[b]! + 1) & (GEN_MOD - 1);
        this.cls[b] = cls;
        this.referenced++;
        this.cached++;
        index.add(id, this.bit, this.slot, b);
        this.applyPin(b);
        created.push(i);
        owned.add(this, b * GEN_MOD + this.gen[b]!);
      }
      out.push(b);
    }
  }

  /**
   * Drop a request's references, tail first so that a prefix outlives its continuation under LRU. With `owner`, the
   * list is kept as what its trajectory last held here for `view` (see acquirePrefix); the caller must not reuse it.
   */
  release(blocks: number[], now: number, owner?: OwnedBlocks, view?: HashList): void {
    let gens: Int32Array | null = null;
    if (owner && view && blocks.length) {
      if (owner.heldGens.length < blocks.length)
        owner.heldGens = new Int32Array(Math.max(blocks.length, 2 * owner.heldGens.length));
      gens = owner.heldGens;
      owner.heldPool = this;
      owner.heldView = view;
      owner.heldBlocks = blocks;
    }
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      if (gens) gens[i] = this.gen[b]!;
      if (--this.ref[b]! > 0) continue;
      this.referenced--;
      this.releasedAt[b] = now;
      if (!this.pinned[b]) this.link(b);
      const ttl = this.cls[b]!.ttlMs;
      if (ttl > 0 && !this.ttlQueued[b]) {
        this.ttl.push(now + ttl, b);
        this.ttlQueued[b] = 1;
      }
    }
  }

  /** The list a request of `owner` collects its blocks of `list` in: the blocks its trajectory last held here for that view (acquirePrefix keeps the valid ones in place), else `fallback`. */
  blockList(owner: OwnedBlocks, list: HashList, fallback: number[]): number[] {
    return owner.heldPool === this && owner.heldView === list && fallback.length === 0 ? owner.heldBlocks : fallback;
  }

  /** Remove unreferenced blocks whose TTL (counted from their last release) ran out by `now`. */
  expire(now: number): void {
    const heap = this.ttl;
    while (heap.peekTime() <= now) {
      const b = heap.pop();
      this.ttlQueued[b] = 0;
      if (this.entry[b]! < 0 || this.ref[b]! > 0) continue;
      const ttl = this.cls[b]!.ttlMs;
      if (ttl <= 0) continue;
      const due = this.releasedAt[b]! + ttl;
      if (due <= now) this.remove(b, "ttl");
      else {
        heap.push(due, b);
        this.ttlQueued[b] = 1;
      }
    }
  }

  /** Lifecycle trigger on an owned-block ref: evict it if still the same block, unreferenced, and its class evicts on this event. */
  evictOnEnd(ref: number, trigger: "agent_end" | "session_end"): boolean {
    const b = Math.floor(ref / GEN_MOD);
    if (this.entry[b]! < 0 || this.gen[b] !== ref % GEN_MOD || this.ref[b] !== 0) return false;
    const evictOn = this.cls[b]!.evictOn;
    const fires = trigger === "agent_end" ? evictOn === EVICT_AGENT_END : evictOn !== EVICT_NEVER;
    if (fires) this.remove(b, trigger);
    return fires;
  }

  /** Drop everything (the worker left); returns the number of cached blocks dropped. */
  clear(): number {
    const n = this.cached;
    for (let b = 0; b < this.capacity; b++) {
      const id = this.entry[b]!;
      if (id < 0) continue;
      this.index.drop(id, this.bit);
      this.entry[b] = -1;
    }
    this.cached = this.referenced = this.pinnedCount = this.evictable = 0;
    this.heads.fill(-1);
    this.tails.fill(-1);
    this.lowHint = PRIORITIES;
    this.ttl.clear();
    this.ttlQueued.fill(0);
    return n;
  }

  /** Take the removed hashes collected so far, by reason. */
  drainRemoved(): [RemovalReason, string[]][] {
    if (this.removedCount === 0) return NOTHING_REMOVED;
    this.removedCount = 0;
    const out: [RemovalReason, string[]][] = [];
    for (const reason of ["capacity", "ttl", "agent_end", "session_end", "offloaded"] as const) {
      if (this.removed[reason].length) {
        out.push([reason, this.removed[reason]]);
        this.removed[reason] = [];
      }
    }
    return out;
  }

  private touch(b: number, cls: RetentionClass): void {
    if (this.ref[b] === 0) {
      this.referenced++;
      if (this.bucket[b]! >= 0) this.unlink(b);
    }
    this.ref[b] = this.ref[b]! + 1;
    if (this.cls[b] !== cls) {
      if (this.pinned[b]) this.pinnedCount--;
      this.pinned[b] = 0;
      this.cls[b] = cls;
      this.applyPin(b);
    }
  }

  private applyPin(b: number): void {
    if (this.cls[b]!.pin && this.pinnedCount < this.capacity / 2) {
      this.pinned[b] = 1;
      this.pinnedCount++;
    }
  }

  private remove(b: number, reason: RemovalReason): void {
    if (this.bucket[b]! >= 0) this.unlink(b);
    if (this.pinned[b]) this.pinnedCount--;
    this.pinned[b] = 0;
    const id = this.entry[b]!;
    const hash = this.index.hashes[id]!;
    const off =
      this.offload !== null && (reason === "capacity" || reason === "ttl") && this.offload(hash, this.cls[b]!);
    this.removed[off ? "offloaded" : reason].push(hash);
    this.removedCount++;
    if (this.onRemove !== null) this.onRemove(this.cls[b]!);
    this.index.drop(id, this.bit);
    this.entry[b] = -1;
    this.cached--;
    this.unused[this.unusedTop++] = b;
  }

  private lowest(): number {
    if (this.evictable === 0) return -1;
    while (this.lowHint < PRIORITIES && this.heads[this.lowHint]! < 0) this.lowHint++;
    return this.lowHint < PRIORITIES ? this.heads[this.lowHint]! : -1;
  }

  private link(b: number): void {
    const p = this.cls[b]!.priority;
    const tail = this.tails[p]!;
    this.bucket[b] = p;
    this.prev[b] = tail;
    this.next[b] = -1;
    if (tail >= 0) this.next[tail] = b;
    else this.heads[p] = b;
    this.tails[p] = b;
    this.evictable++;
    if (p < this.lowHint) this.lowHint = p;
  }

  private unlink(b: number): void {
    const p = this.bucket[b]!;
    const prev = this.prev[b]!;
    const next = this.next[b]!;
    if (prev >= 0) this.next[prev] = next;
    else this.heads[p] = next;
    if (next >= 0) this.prev[next] = prev;
    else this.tails[p] = prev;
    this.prev[b] = this.next[b] = -1;
    this.bucket[b] = -1;
    this.evictable--;
  }
}
