import type { BlockPool } from "./block-pool";

// The blocks one trajectory stored, so that lifecycle triggers (agent_end, session_end) can evict them.

/** Blocks a trajectory stored, for lifecycle eviction: (block index, generation) refs in runs per pool. */
export class OwnedBlocks {
  /** The pool of each run of refs, and the index in `refs` where the run starts. */
  readonly pools: BlockPool[] = [];
  readonly starts: number[] = [];
  readonly refs: number[] = [];

  /** Record one stored block of `pool`. */
  add(pool: BlockPool, ref: number): void {
    if (this.pools[this.pools.length - 1] !== pool) {
      this.pools.push(pool);
      this.starts.push(this.refs.length);
    }
    this.refs.push(ref);
  }
}
