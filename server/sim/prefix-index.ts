// The cluster-wide prefix index: every cached sequence hash, the worker slots holding it and each
// slot's block index. One map for all pools; entry ids are cached per hashed block of a prompt.

export const MAX_SLOTS = 32;

/** Sequence hashes with a cache of their index entry ids (-1: unknown), checked before use. */
export type HashList = { readonly seq: readonly string[]; readonly ids: number[] };

/**
 * Every cached hash of the cluster: its worker-slot mask and, per slot, that worker's block index.
 * An entry no worker holds stays (mask 0) until a sweep, because evicted prefixes are often
 * recomputed soon after; sweeps run once the idle entries outnumber the live ones.
 */
export class PrefixIndex {
  private ids = new Map<string, number>();
  mask = new Int32Array(1 << 16);
  blockOf = new Int32Array((1 << 16) * MAX_SLOTS);
  hashes: string[] = [];
  private free: number[] = [];
  private idle: number[] = [];
  private live = 0;

  /** Hashes held by at least one worker. */
  get size(): number {
    return this.live;
  }

  /** Entry id of a hash, or -1. */
  lookup(hash: string): number {
    return this.ids.get(hash) ?? -1;
  }

  /** Slot mask of a hash (0 when nobody holds it). */
  maskOf(hash: string): number {
    const id = this.ids.get(hash);
    return id === undefined ? 0 : this.mask[id]!;
  }

  /** Entry id of list.seq[i], or -1, using and refreshing the list's id cache. */
  idAt(list: HashList, i: number): number {
    const hash = list.seq[i]!;
    const cached = list.ids[i]!;
    if (cached >= 0 && this.hashes[cached] === hash) return cached;
    const id = this.ids.get(hash) ?? -1;
    list.ids[i] = id;
    return id;
  }

  /** Entry id of list.seq[i], created if needed. */
  ensureAt(list: HashList, i: number): number {
    let id = this.idAt(list, i);
    if (id >= 0) return id;
    const hash = list.seq[i]!;
    id = this.free.length ? this.free.pop()! : this.hashes.length;
    if (id >= this.mask.length) this.grow();
    this.hashes[id] = hash;
    this.mask[id] = 0;
    this.ids.set(hash, id);
    list.ids[i] = id;
    return id;
  }

  /** Record a slot's copy of an entry. */
  add(id: number, bit: number, slot: number, block: number): void {
    if (this.mask[id] === 0) this.live++;
    this.mask[id] = this.mask[id]! | bit;
    this.blockOf[id * MAX_SLOTS + slot] = block;
  }

  /** Forget a slot's copy; an entry nobody holds becomes idle. */
  drop(id: number, bit: number): void {
    const m = this.mask[id]! & ~bit;
    this.mask[id] = m;
    if (m !== 0) return;
    this.live--;
    this.idle.push(id);
    if (this.idle.length > Math.max(65_536, this.live)) this.sweep();
  }

  /** Delete the entries still held by nobody. */
  private sweep(): void {
    for (const id of this.idle) {
      if (this.mask[id] !== 0 || this.hashes[id] === "") continue;
      this.ids.delete(this.hashes[id]!);
      this.hashes[id] = "";
      this.free.push(id);
    }
    this.idle = [];
  }

  private grow(): void {
    const mask = new Int32Array(this.mask.length * 2);
    mask.set(this.mask);
    const blockOf = new Int32Array(this.blockOf.length * 2);
    blockOf.set(this.blockOf);
    this.mask = mask;
    this.blockOf = blockOf;
  }

  /** Leading matched blocks per slot (out[slot]) for the slots in `candidates`, over list.seq[0..n). */
  overlaps(list: HashList, n: number, candidates: number, out: number[]): void {
    let alive = candidates;
    for (let i = 0; i < n && alive !== 0; i++) {
      const id = this.idAt(list, i);
      const m = id < 0 ? 0 : this.mask[id]!;
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
