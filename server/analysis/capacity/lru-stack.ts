import { RangeFenwick } from "./fenwick";
import { KeyTable, nextKey } from "./key-table";

// LRU stacks for Mattson's algorithm. Every block of a stack has the time of its last access; a Fenwick tree over
// times marks the live ones, so a block's stack distance is the number of marks after its time. A turn touches its
// blocks together: block 0 ends most recent, then block 1, … (as an engine frees a request's blocks tail first, so a
// prefix outlives its continuation); a turn seen before thus gives runs of consecutive times, and a whole run costs
// one query and one range update. The shared stack names blocks by their chain-prefix key (ids 0, 1, … in a key
// table); the workers' stacks use the same ids.

const MIN_TIMES = 1 << 12;

/**
 * A turn's runs of seen blocks: where each starts (position), how long it is, its first block's distance before the
 * turn and that block's time then; `unseen`: the first position never seen before (n: none).
 */
export type TurnRuns = {
  at: Int32Array;
  len: Int32Array;
  dist: Float64Array;
  time: Int32Array;
  count: number;
  unseen: number;
};

/** Scratch run records for turns of up to `n` blocks. */
export function turnRuns(n: number): TurnRuns {
  const m = Math.max(1, n);
  return {
    at: new Int32Array(m),
    len: new Int32Array(m),
    dist: new Float64Array(m),
    time: new Int32Array(m),
    count: 0,
    unseen: 0,
  };
}

/**
 * One stack's clock: the Fenwick tree over times (a mark per live time, plus stale marks below `floor`), which id each
 * time was given to (−1 once it is not that id's time any more), and the live blocks, at most `limit`: a block pushed
 * below the top `limit` has a distance of at least `limit` from then on, a miss at every size the caller asks about,
 * so it is dropped (its time set to 0, as if never seen). That keeps the tree and the times in proportion to the
 * largest cache, not to the window.
 */
export class Recency {
  live = 0;
  private marks = 0;
  clock = 1;
  private floor = 1;
  tree = new RangeFenwick(MIN_TIMES);
  owner = new Int32Array(MIN_TIMES + 1);

  constructor(readonly limit: number) {}

  /** Distance of the block whose time is `t`: the live marks after it. */
  distance(t: number): number {
    return this.marks - this.tree.prefix(t);
  }

  /** Room for `n` more times: when the tree is full, renumber the live times 1..live (order kept) and resize. */
  reserve(n: number, times: Int32Array): void {
    if (this.clock + n <= this.tree.size) return;
    const owner = this.owner;
    let r = 0;
    for (let t = this.floor; t < this.clock; t++) {
      const id = owner[t]!;
      if (id < 0) continue;
      times[id] = ++r;
      owner[r] = id;
    }
    const size = Math.max(MIN_TIMES, 3 * (r + n));
    this.tree.reset(size);
    if (r > 0) this.tree.addRange(1, r, 1);
    if (owner.length <= size) {
      const grown = new Int32Array(size + 1);
      grown.set(owner.subarray(0, r + 1));
      this.owner = grown;
    }
    this.marks = r;
    this.floor = 1;
    this.clock = r + 1;
  }

  /** After a turn: `removed` marks taken off, `n` new ones made, `added` blocks new; drop what falls off the bottom. */
  settle(times: Int32Array, removed: number, n: number, added: number): void {
    this.marks += n - removed;
    this.live += added;
    this.clock += n;
    const owner = this.owner;
    while (this.live > this.limit) {
      const id = owner[this.floor]!;
      owner[this.floor++] = -1;
      if (id < 0) continue;
      times[id] = 0;
      this.live--;
    }
  }
}

/**
 * Move a turn's blocks `ids[0..n)` to the top of a stack (block 0 most recent), filling `runs` with the distances they
 * had before (when `measure`). An id met again in the same turn (two keys colliding) keeps its first place; the turn
 * counts as unseen from the second.
 */
export function touchIds(
  rec: Recency,
  times: Int32Array,
  ids: Int32Array,
  n: number,
  runs: TurnRuns,
  measure: boolean,
): void {
  rec.reserve(n, times);
  const T = rec.clock;
  const owner = rec.owner;
  const at = runs.at;
  const len = runs.len;
  const time = runs.time;
  let count = 0;
  let unseen = n;
  let added = 0;
  let repeated = 0;
  let prevT = -2;
  let top = T + n - 1;
  for (let k = 0; k < n; k++, top--) {
    const id = ids[k]!;
    const t = times[id]!;
    if (t >= T) {
      if (unseen === n) unseen = k;
      owner[top] = -1;
      repeated++;
      prevT = -2;
      continue;
    }
    if (t === 0) {
      if (unseen === n) unseen = k;
      added++;
      prevT = -2;
    } else if (t === prevT - 1) {
      len[count - 1]!++;
      prevT = t;
    } else {
      at[count] = k;
      len[count] = 1;
      time[count++] = t;
      prevT = t;
    }
    times[id] = top;
    owner[top] = id;
  }
  const tree = rec.tree;
  if (measure) for (let r = 0; r < count; r++) runs.dist[r] = rec.distance(time[r]!);
  let removed = repeated;
  for (let r = 0; r < count; r++) {
    tree.addRange(time[r]! - len[r]! + 1, time[r]!, -1);
    owner.fill(-1, time[r]! - len[r]! + 1, time[r]! + 1);
    removed += len[r]!;
  }
  if (n > 0) tree.addRange(T, T + n - 1, 1);
  if (repeated > 0)
    for (let k = 0; k < n; k++) if (owner[T + n - 1 - k] === -1) tree.addRange(T + n - 1 - k, T + n - 1 - k, -1);
  runs.count = count;
  runs.unseen = unseen;
  rec.settle(times, removed, n, added);
}

/** The stack of one cache shared by all turns; its ids are the blocks' ids for the worker stacks too. */
export class SharedStack {
  size = 0;
  times: Int32Array;
  private keys: Float64Array;
  private table: KeyTable;
  private rec: Recency;

  /** `limit`: the largest cache asked about, in blocks; `blocks`: distinct blocks to make room for at first. */
  constructor(limit: number, blocks = 1024) {
    this.rec = new Recency(limit);
    const n = Math.max(1024, blocks);
    this.times = new Int32Array(n);
    this.keys = new Float64Array(n);
    this.table = new KeyTable(n);
  }

  /** Ids of a turn's blocks `pairs` into `ids`: positions before `reuse` already hold them, the rest by key. */
  resolve(pairs: Uint32Array, n: number, ids: Int32Array, reuse: number): void {
    while (this.size + n > this.times.length) this.grow();
    let key = reuse > 0 ? this.keys[ids[reuse - 1]!]! : 0;
    for (let k = reuse; k < n; k++) {
      key = nextKey(key, pairs[2 * k]!, pairs[2 * k + 1]!);
      const id = this.table.getOrAdd(key, this.size);
      ids[k] = id === this.size ? this.add(key) : id;
    }
  }

  /** Touch a resolved turn (see touchIds). */
  touch(ids: Int32Array, n: number, runs: TurnRuns, measure: boolean): void {
    touchIds(this.rec, this.times, ids, n, runs, measure);
  }

  private add(key: number): number {
    const id = this.size++;
    this.keys[id] = key;
    this.times[id] = 0;
    return id;
  }

  private grow(): void {
    const times = new Int32Array(this.times.length * 2);
    times.set(this.times);
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    this.times = times;
    this.keys = keys;
  }
}

/**
 * Stacks by name (a worker's id, say) over one space of dense block ids (the shared stack's): a stack's times are an
 * array indexed by block id, so a turn sent to any of them costs no lookups (memory: 4 bytes per id per stack).
 */
export class IdStacks {
  private times: Int32Array[] = [];
  private recs: Recency[] = [];
  private names = new Map<string, number>();

  /** `limit`: the largest cache per stack asked about, in blocks; `blocks`: ids to make room for at first. */
  constructor(
    readonly limit: number,
    private blocks: number,
  ) {}

  /** Stacks made. */
  get count(): number {
    return this.recs.length;
  }

  /** The index of a stack by name (made at first use). */
  indexOf(name: string): number {
    let w = this.names.get(name);
    if (w === undefined) {
      this.names.set(name, (w = this.recs.length));
      this.recs.push(new Recency(this.limit));
      this.times.push(new Int32Array(Math.max(1024, this.blocks)));
    }
    return w;
  }

  /** Touch stack `w` with a turn's blocks by id, `gids` (each < `gidCount`); see touchIds. */
  touch(w: number, gids: Int32Array, n: number, runs: TurnRuns, measure: boolean, gidCount: number): void {
    let times = this.times[w]!;
    if (times.length < gidCount) {
      const grown = new Int32Array(Math.max(gidCount, 2 * times.length));
      grown.set(times);
      this.times[w] = times = grown;
    }
    touchIds(this.recs[w]!, times, gids, n, runs, measure);
  }
}
