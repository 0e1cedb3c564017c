import { CurveSink } from "./curve";
import { KeyTable, nextKey } from "./key-table";
import { IdStacks, turnRuns, type TurnRuns } from "./lru-stack";
import { CAPACITY_CLASSES } from "./window-turns";

// The moving parts of a SHARDS pass (shards.ts): which blocks of a chain are sampled, the ids of sampled blocks (one
// table for every stack, each id also numbered within its sub-sample group), and one scope of one sample (its
// stacks, its curve, its sampled tokens per class).

/** Modulus of the sampling hash: a block is sampled iff (key mod 2^32) mod P < T. */
export const P = 1 << 24;

/** Sampled blocks' ids by key, with each id's sub-sample group and its number within that group. */
export class SampledIds {
  size = 0;
  group = new Int8Array(1024);
  local = new Int32Array(1024);
  readonly groupSize: Int32Array;
  private table = new KeyTable(1 << 12);

  constructor(
    private T: number,
    private groups: number,
  ) {
    this.groupSize = new Int32Array(groups);
  }

  idOf(key: number): number {
    const id = this.table.getOrAdd(key, this.size);
    if (id < this.size) return id;
    if (this.size === this.group.length) {
      const group = new Int8Array(2 * this.size);
      group.set(this.group);
      const local = new Int32Array(2 * this.size);
      local.set(this.local);
      this.group = group;
      this.local = local;
    }
    const g = Math.floor((((key >>> 0) % P) * this.groups) / this.T);
    this.group[id] = g;
    this.local[id] = this.groupSize[g]!++;
    return this.size++;
  }
}

/** A trajectory's last chain: every block's key, and the positions and ids of its sampled blocks (ascending). */
export type SampledChain = { keys: Float64Array; at: Int32Array; ids: Int32Array; count: number };

export const newChain = (): SampledChain => ({
  keys: new Float64Array(0),
  at: new Int32Array(0),
  ids: new Int32Array(0),
  count: 0,
});

/**
 * Bring a trajectory's chain to this turn's `pairs` (n blocks, the first `common` as in its last turn): keys and
 * sampled ids from `common` on, those before it kept. Returns how many of its blocks are sampled.
 */
export function sampleChain(
  ch: SampledChain,
  pairs: Uint32Array,
  n: number,
  common: number,
  T: number,
  ids: SampledIds,
): number {
  if (ch.keys.length < n) {
    const size = Math.max(n, 2 * ch.keys.length);
    const keys = new Float64Array(size);
    keys.set(ch.keys.subarray(0, common));
    const at = new Int32Array(size);
    at.set(ch.at.subarray(0, ch.count));
    const sampled = new Int32Array(size);
    sampled.set(ch.ids.subarray(0, ch.count));
    Object.assign(ch, { keys, at, ids: sampled });
  }
  let c = ch.count;
  while (c > 0 && ch.at[c - 1]! >= common) c--;
  let key = common > 0 ? ch.keys[common - 1]! : 0;
  for (let pos = common; pos < n; pos++) {
    key = nextKey(key, pairs[2 * pos]!, pairs[2 * pos + 1]!);
    ch.keys[pos] = key;
    if ((key >>> 0) % P >= T) continue;
    ch.at[c] = pos;
    ch.ids[c++] = ids.idOf(key);
  }
  ch.count = c;
  return c;
}

/** A turn's sampled blocks: ids (in the scope's id space), classes, input tokens. */
export type SampledBlocks = { ids: Int32Array; cls: Int8Array; tok: Float64Array };

export const sampledBlocks = (n: number): SampledBlocks => ({
  ids: new Int32Array(n),
  cls: new Int8Array(n),
  tok: new Float64Array(n),
});

/** One scope of one sample: a stack per worker (or one), its curve, and its sampled tokens per class. */
export class SampledScope {
  readonly sink: CurveSink;
  readonly classTokens = CAPACITY_CLASSES.map(() => 0);
  private stacks: IdStacks;
  private runs: TurnRuns = turnRuns(64);

  /** `scale`: 1 ÷ the sampling rate; stacks keep the sampled blocks that can still hit at the largest edge. */
  constructor(
    edges: number[],
    readonly scale: number,
  ) {
    this.sink = new CurveSink(edges);
    this.stacks = new IdStacks(Math.ceil(edges[edges.length - 1]! / scale) + 1, 1024);
  }

  /** Touch stack `name` with a turn's `n` sampled blocks (ids below `idCount`); count them when `counted`. */
  turn(name: string, b: SampledBlocks, n: number, counted: boolean, idCount: number): void {
    if (this.runs.at.length < n) this.runs = turnRuns(2 * n);
    const r = this.runs;
    this.stacks.touch(this.stacks.indexOf(name), b.ids, n, r, counted, idCount);
    if (!counted) return;
    const { cls, tok } = b;
    for (let k = 0; k < n; k++) this.classTokens[cls[k]!]! += tok[k]!;
    let m = -1;
    for (let j = 0; j < r.count; j++) {
      const start = r.at[j]!;
      const stop = Math.min(start + r.len[j]!, r.unseen);
      for (let k = start; k < stop; k++) {
        m = Math.max(m, r.dist[j]! + (k - start));
        if (tok[k]! > 0) this.sink.add(cls[k]!, Math.floor(m * this.scale) + 1, tok[k]!);
      }
    }
  }
}
