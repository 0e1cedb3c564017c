// The cluster-wide prefix index: every cached sequence hash, the worker slots holding it and each
// slot's block index. One map for all pools; entry ids are cached per hashed block of a prompt.

export const MAX_SLOTS = 32;

/** Sequence hashes with a cache of their index entry ids (-1: unknown), checked before use. */
export type HashList = { readonly seq: readonly string[]; readonly ids: number[] };

/** Every cached hash of the cluster: its worker-slot mask and, per slot, that worker's block index. */
export class PrefixIndex {
  private ids = new Map<string, number>();
  mask = new Int32Array(1 << 16);
  blockOf = new Int32Array((1 << 16) * MAX_SLOTS);
  hashes: string[] = [];
  private free: number[] = [];

  get size(): number {
    return this.ids.size;
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

  /** Forget a slot's copy; the entry goes when no slot holds it. */
  drop(id: number, bit: number): void {
    const m = this.mask[id]! & ~bit;
    this.mask[id] = m;
    if (m === 0) {
      this.ids.delete(this.hashes[id]!);
      this.hashes[id] = "";
      this.free.push(id);
    }
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
