// One lower KV tier (host memory, local disk, or the cluster's shared storage): blocks keyed by sequence hash, each
// with the retention priority of its class, an optional TTL counted from when it entered the tier, and recency.
// Room is made by dropping expired blocks first, then the lowest priority, least recently used first. Blocks are
// copied out when onboarded (the tier keeps them), as Dynamo's KV block manager does.

import type { OffloadTier } from "../../lib/policies/policies";

const PRIORITIES = 101;

type Entry = { priority: number; expiresAt: number; owner: string };

/** Blocks that entered or left a tier since the last drain, per owning worker (the worker that offloaded them). */
export type TierRemoval = "capacity" | "ttl" | "agent_end" | "session_end";
export type TierMoves = { stored: Map<string, string[]>; removed: Map<string, Record<TierRemoval, string[]>> };

export class TierPool {
  private entries = new Map<string, Entry>();
  /** Per priority, hashes in recency order (a Map keeps insertion order; a touch re-inserts). */
  private lru: (Map<string, true> | undefined)[] = new Array(PRIORITIES);
  private low = PRIORITIES;
  /** Expiry times and their hashes as a binary min-heap (parallel arrays); stale entries are skipped when popped. */
  private heapT: number[] = [];
  private heapH: string[] = [];
  private moves: TierMoves = { stored: new Map(), removed: new Map() };

  constructor(
    readonly tier: OffloadTier,
    readonly capacity: number,
  ) {
    if (!Number.isInteger(capacity) || capacity <= 0)
      throw new Error(`${tier} tier: capacity must be a positive whole number of blocks`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** True when the tier holds the hash at `now` (an expired block is dropped on sight). */
  has(hash: string, now: number): boolean {
    const e = this.entries.get(hash);
    if (e === undefined) return false;
    if (e.expiresAt <= now) {
      this.remove(hash, e, "ttl");
      return false;
    }
    return true;
  }

  /** Mark a held block as just used (an onboard read). */
  touch(hash: string): void {
    const e = this.entries.get(hash);
    if (e === undefined) return;
    const list = this.lru[e.priority]!;
    list.delete(hash);
    list.set(hash, true);
  }

  /** Store a block offloaded by `owner` (already held: refreshed); false when the tier is full of blocks of higher priority. */
  put(hash: string, priority: number, ttlMs: number, now: number, owner: string): boolean {
    const had = this.entries.get(hash);
    if (had !== undefined) {
      this.remove(hash, had, null);
    } else if (this.entries.size >= this.capacity) {
      this.expire(now);
      if (this.entries.size >= this.capacity && !this.dropLowest(priority)) return false;
    }
    const expiresAt = ttlMs > 0 ? now + ttlMs : Infinity;
    this.entries.set(hash, { priority, expiresAt, owner });
    (this.lru[priority] ??= new Map()).set(hash, true);
    if (priority < this.low) this.low = priority;
    if (expiresAt !== Infinity) this.pushExpiry(expiresAt, hash);
    if (this.heapT.length > 2 * this.capacity + 1024) this.compactExpiries();
    if (had === undefined) push(this.moves.stored, owner, hash);
    return true;
  }

  /**
   * Rebuild the expiry heap from the blocks held: a refreshed or dropped block leaves its old entry behind until that
   * entry's own time, so without this the heap would grow with every put under a long TTL. Bounded at twice the tier's
   * capacity (plus 1,024), rebuilt in O(n log n) when past it.
   */
  private compactExpiries(): void {
    this.heapT = [];
    this.heapH = [];
    for (const [hash, e] of this.entries) if (e.expiresAt !== Infinity) this.pushExpiry(e.expiresAt, hash);
  }

  /** Drop blocks whose TTL ran out by `now`. */
  expire(now: number): void {
    while (this.heapT.length > 0 && this.heapT[0]! <= now) {
      const hash = this.popExpiry();
      const e = this.entries.get(hash);
      if (e !== undefined && e.expiresAt <= now) this.remove(hash, e, "ttl");
    }
  }

  /** Drop a held block because its agent or session ended (lifecycle eviction reaches the lower tiers too); true when held. */
  dropOnEnd(hash: string, reason: "agent_end" | "session_end"): boolean {
    const e = this.entries.get(hash);
    if (e === undefined) return false;
    this.remove(hash, e, reason);
    return true;
  }

  /** Drop everything an owner offloaded (that worker left); returns the hashes. */
  dropOwner(owner: string): string[] {
    const out: string[] = [];
    for (const [hash, e] of this.entries) if (e.owner === owner) out.push(hash);
    for (const hash of out) this.remove(hash, this.entries.get(hash)!, null);
    this.moves.stored.delete(owner);
    this.moves.removed.delete(owner);
    return out;
  }

  /** Take the blocks stored and removed since the last call (null when none). */
  drain(): TierMoves | null {
    if (this.moves.stored.size === 0 && this.moves.removed.size === 0) return null;
    const m = this.moves;
    this.moves = { stored: new Map(), removed: new Map() };
    return m;
  }

  /** Drop the least recently used block of the lowest priority, if that priority is at most `upTo`. */
  private dropLowest(upTo: number): boolean {
    while (this.low <= upTo) {
      const list = this.lru[this.low];
      const first = list?.keys().next();
      if (first && !first.done) {
        this.remove(first.value, this.entries.get(first.value)!, "capacity");
        return true;
      }
      this.low++;
    }
    return false;
  }

  private remove(hash: string, e: Entry, reason: TierRemoval | null): void {
    this.entries.delete(hash);
    this.lru[e.priority]!.delete(hash);
    if (reason === null) return;
    let r = this.moves.removed.get(e.owner);
    if (!r) this.moves.removed.set(e.owner, (r = { capacity: [], ttl: [], agent_end: [], session_end: [] }));
    r[reason].push(hash);
  }

  private pushExpiry(t: number, hash: string): void {
    const T = this.heapT;
    const H = this.heapH;
    let i = T.length;
    T.push(t);
    H.push(hash);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (T[p]! <= t) break;
      T[i] = T[p]!;
      H[i] = H[p]!;
      i = p;
    }
    T[i] = t;
    H[i] = hash;
  }

  private popExpiry(): string {
    const T = this.heapT;
    const H = this.heapH;
    const top = H[0]!;
    const t = T.pop()!;
    const h = H.pop()!;
    const n = T.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const c = l + 1 < n && T[l + 1]! < T[l]! ? l + 1 : l;
        if (T[c]! >= t) break;
        T[i] = T[c]!;
        H[i] = H[c]!;
        i = c;
      }
      T[i] = t;
      H[i] = h;
    }
    return top;
  }
}

function push(m: Map<string, string[]>, key: string, v: string): void {
  const list = m.get(key);
  if (list) list.push(v);
  else m.set(key, [v]);
}
