// One worker's KV block pool: cached blocks keyed by sequence hash, reference counts for running
// requests, eviction by retention priority then least recently used, TTL expiry, pins and
// lifecycle triggers. A prefix index shared by all pools tells the router which workers hold a block.

export const EVICT_NEVER = 0;
export const EVICT_AGENT_END = 1;
export const EVICT_SESSION_END = 2;

export type RetentionClass = { name: string; priority: number; ttlMs: number; pin: boolean; evictOn: number };
export type RemovalReason = "capacity" | "ttl" | "agent_end" | "session_end";

export class Block {
  ref = 0;
  lastUse = 0;
  stamp = 0;
  alive = true;
  pinned = false;
  prev: Block | null = null;
  next: Block | null = null;
  bucket = -1;
  constructor(
    readonly pool: BlockPool,
    readonly hash: string,
    public cls: RetentionClass,
    readonly owner: string,
  ) {}
}

/** For every cached hash, a bit mask of the worker slots holding it. */
export class PrefixIndex {
  readonly masks = new Map<string, number>();

  add(hash: string, bit: number): void {
    this.masks.set(hash, (this.masks.get(hash) ?? 0) | bit);
  }

  remove(hash: string, bit: number): void {
    const m = (this.masks.get(hash) ?? 0) & ~bit;
    if (m === 0) this.masks.delete(hash);
    else this.masks.set(hash, m);
  }

  /** Leading matched blocks per slot (out[slot]) for the slots in `candidates`, over hashes[0..n). */
  overlaps(hashes: readonly string[], n: number, candidates: number, out: number[]): void {
    let alive = candidates;
    for (let i = 0; i < n && alive !== 0; i++) {
      const m = this.masks.get(hashes[i]!) ?? 0;
      let dropped = alive & ~m;
      while (dropped !== 0) {
        const low = dropped & -dropped;
        out[31 - Math.clz32(low)] = i;
        dropped ^= low;
      }
      alive &= m;
    }
    while (alive !== 0) {
      const low = alive & -alive;
      out[31 - Math.clz32(low)] = n;
      alive ^= low;
    }
  }
}

type TtlEntry = { block: Block; stamp: number; at: number };
const PRIORITIES = 101;

export class BlockPool {
  readonly blocks = new Map<string, Block>();
  /** Blocks reserved for prefill in progress and decode output (counted as used, not cached). */
  reserved = 0;
  /** Cached blocks with ref > 0. */
  referenced = 0;
  pinnedCount = 0;
  private heads: (Block | null)[] = new Array(PRIORITIES).fill(null);
  private tails: (Block | null)[] = new Array(PRIORITIES).fill(null);
  private evictable = 0;
  private ttl = new Map<number, { items: TtlEntry[]; head: number }>();
  /** Removed hashes since the last drain, by reason. */
  readonly removed: Record<RemovalReason, string[]> = { capacity: [], ttl: [], agent_end: [], session_end: [] };

  constructor(
    readonly capacity: number,
    readonly index: PrefixIndex,
    readonly bit: number,
  ) {}

  get used(): number {
    return this.blocks.size + this.reserved;
  }

  /** Blocks in use by requests (the kv_active_blocks of worker.stats). */
  get active(): number {
    return this.referenced + this.reserved;
  }

  /** Leading blocks of hashes[0..n) present in this pool. */
  match(hashes: readonly string[], n: number): number {
    let i = 0;
    while (i < n && this.blocks.has(hashes[i]!)) i++;
    return i;
  }

  /** Make room for `count` more blocks, evicting if needed; false if referenced/pinned blocks leave no room. */
  makeRoom(count: number): boolean {
    if (count > this.capacity) return false;
    while (this.capacity - this.used < count) {
      const victim = this.lowest();
      if (!victim) return false;
      this.remove(victim, "capacity");
    }
    return true;
  }

  /** Take a reference on the cached blocks hashes[0..n) (all must be present); returns them. */
  acquire(hashes: readonly string[], n: number, classes: readonly RetentionClass[], segments: readonly number[], now: number, out: Block[]): void {
    for (let i = 0; i < n; i++) {
      const b = this.blocks.get(hashes[i]!)!;
      this.touch(b, classes[segments[i]!]!, now);
      out.push(b);
    }
  }

  /** Cache blocks hashes[from..to) computed by a request, referenced by it; `created` gets the new ones' indexes. */
  store(hashes: readonly string[], from: number, to: number, classes: readonly RetentionClass[], segments: readonly number[], owner: string, now: number, out: Block[], created: number[]): void {
    for (let i = from; i < to; i++) {
      const hash = hashes[i]!;
      let b = this.blocks.get(hash);
      if (b) {
        this.touch(b, classes[segments[i]!]!, now);
      } else {
        b = new Block(this, hash, classes[segments[i]!]!, owner);
        b.ref = 1;
        b.lastUse = now;
        this.referenced++;
        this.blocks.set(hash, b);
        this.index.add(hash, this.bit);
        this.applyPin(b);
        created.push(i);
      }
      out.push(b);
    }
  }

  /** Drop a request's references, tail first so that a prefix outlives its continuation under LRU. */
  release(blocks: readonly Block[], now: number): void {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      if (!b.alive || b.pool !== this) continue;
      b.lastUse = now;
      if (--b.ref > 0) continue;
      this.referenced--;
      b.stamp++;
      if (!b.pinned) this.link(b);
      if (b.cls.ttlMs > 0) this.queueTtl(b, now + b.cls.ttlMs);
    }
  }

  /** Remove unreferenced blocks whose TTL ran out by `now`. */
  expire(now: number): void {
    for (const q of this.ttl.values()) {
      while (q.head < q.items.length && q.items[q.head]!.at <= now) {
        const { block, stamp } = q.items[q.head++]!;
        if (block.alive && block.stamp === stamp && block.ref === 0) this.remove(block, "ttl");
      }
      if (q.head > 1024 && q.head * 2 > q.items.length) {
        q.items = q.items.slice(q.head);
        q.head = 0;
      }
    }
  }

  /** Lifecycle trigger: evict an owned block if it is unreferenced and its class evicts on this event. */
  evictOnEnd(b: Block, trigger: "agent_end" | "session_end"): boolean {
    if (!b.alive || b.ref > 0) return false;
    const fires = trigger === "agent_end" ? b.cls.evictOn === EVICT_AGENT_END : b.cls.evictOn !== EVICT_NEVER;
    if (fires) this.remove(b, trigger);
    return fires;
  }

  /** Drop everything (the worker left); returns the number of cached blocks dropped. */
  clear(): number {
    const n = this.blocks.size;
    for (const b of this.blocks.values()) {
      b.alive = false;
      this.index.remove(b.hash, this.bit);
    }
    this.blocks.clear();
    this.heads.fill(null);
    this.tails.fill(null);
    this.evictable = 0;
    this.referenced = 0;
    this.pinnedCount = 0;
    this.ttl.clear();
    return n;
  }

  /** Take the removed hashes collected so far. */
  drainRemoved(): [RemovalReason, string[]][] {
    const out: [RemovalReason, string[]][] = [];
    for (const reason of ["capacity", "ttl", "agent_end", "session_end"] as const) {
      if (this.removed[reason].length) {
        out.push([reason, this.removed[reason]]);
        this.removed[reason] = [];
      }
    }
    return out;
  }

  private touch(b: Block, cls: RetentionClass, now: number): void {
    if (b.ref === 0) {
      this.referenced++;
      if (b.bucket >= 0) this.unlink(b);
    }
    b.ref++;
    b.stamp++;
    b.lastUse = now;
    if (b.cls !== cls) {
      if (b.pinned) this.pinnedCount--;
      b.pinned = false;
      b.cls = cls;
      this.applyPin(b);
    }
  }

  private applyPin(b: Block): void {
    if (b.cls.pin && this.pinnedCount < this.capacity / 2) {
      b.pinned = true;
      this.pinnedCount++;
    }
  }

  private remove(b: Block, reason: RemovalReason): void {
    if (b.bucket >= 0) this.unlink(b);
    if (b.pinned) this.pinnedCount--;
    b.alive = false;
    this.blocks.delete(b.hash);
    this.index.remove(b.hash, this.bit);
    this.removed[reason].push(b.hash);
  }

  private lowest(): Block | null {
    if (this.evictable === 0) return null;
    for (let p = 0; p < PRIORITIES; p++) if (this.heads[p]) return this.heads[p]!;
    return null;
  }

  private link(b: Block): void {
    const p = b.cls.priority;
    b.bucket = p;
    b.prev = this.tails[p]!;
    b.next = null;
    if (b.prev) b.prev.next = b;
    else this.heads[p] = b;
    this.tails[p] = b;
    this.evictable++;
  }

  private unlink(b: Block): void {
    const p = b.bucket;
    if (b.prev) b.prev.next = b.next;
    else this.heads[p] = b.next;
    if (b.next) b.next.prev = b.prev;
    else this.tails[p] = b.prev;
    b.prev = b.next = null;
    b.bucket = -1;
    this.evictable--;
  }

  private queueTtl(b: Block, at: number): void {
    let q = this.ttl.get(b.cls.ttlMs);
    if (!q) this.ttl.set(b.cls.ttlMs, (q = { items: [], head: 0 }));
    q.items.push({ block: b, stamp: b.stamp, at });
  }
}
