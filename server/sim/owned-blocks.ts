import { BlockList } from "./block-list";
import type { BlockPool } from "./block-pool";
import type { HashList } from "./prefix-index";

/** 2^30: an owned-block ref is block index * GEN_MOD + generation (block-pool.ts reads it back). */
const GEN_MOD = 1_073_741_824;

// The blocks one trajectory stored, so that lifecycle triggers (agent_end, session_end) can evict them.

/** Blocks a trajectory stored, for lifecycle eviction: (block index, generation) refs in runs per pool. */
export class OwnedBlocks {
  /** The pool of each run of refs, and the index in `refs` where the run starts. */
  readonly pools: BlockPool[] = [];
  readonly starts: number[] = [];
  /** refs[0, length): off the JS heap, so that the garbage collector never walks a long trajectory's refs. */
  refs = new Float64Array(64);
  length = 0;

  /**
   * The blocks the trajectory's last request held when it released them (positions 0… of `heldView` in `heldPool`),
   * with each block's generation then: the next turn checks those instead of looking its prefix up again.
   */
  heldPool: BlockPool | null = null;
  heldView: HashList | null = null;
  heldBlocks = new BlockList();
  heldGens = new Int32Array(0);

  /** `keepRefs` false: no lifecycle trigger will ever evict these blocks (refs stay empty; held blocks work as ever). */
  constructor(readonly keepRefs = true) {}

  /**
   * Record one stored block of `pool`: block index `b` of generation `gen` (ref b * 2^30 + gen). The ref is made here,
   * not by the caller: a double passed as an argument is boxed (one heap number per stored block).
   */
  add(pool: BlockPool, b: number, gen: number): void {
    if (!this.keepRefs) return;
    if (this.pools[this.pools.length - 1] !== pool) {
      this.pools.push(pool);
      this.starts.push(this.length);
    }
    if (this.length === this.refs.length) {
      const grown = new Float64Array(this.refs.length * 2);
      grown.set(this.refs);
      this.refs = grown;
    }
    this.refs[this.length++] = b * GEN_MOD + gen;
  }
}
