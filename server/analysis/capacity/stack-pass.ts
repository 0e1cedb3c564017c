import type { RecordedTurn } from "../../preview/types";
import { SEG_TOOLS } from "../../sim/stream";
import { SharedStack, turnRuns, IdStacks, type TurnRuns } from "./lru-stack";
import { chainLength, shapeOf, type PreparedWindow, type TurnShape } from "./window-turns";

// One pass of Mattson's stack algorithm over a window, in two scopes: each worker its own LRU stack under the
// recorded routing, and one stack shared by all turns. A turn's first blocks are usually its trajectory's previous
// prompt: their ids are kept from that turn (checked pair by pair), so only new blocks are looked up by key.
// Counted (window) turns are handed to a sink as runs of blocks whose distances go up by one block by block.

/** Takes a counted turn's blocks, up to its first block never seen before (that and all after it miss). */
export interface RunSink {
  /**
   * `len` blocks of class `cls` (an index into CAPACITY_CLASSES), `tokens` input tokens each, whose stack distances
   * before the turn are d0, d0 + 1, …; `m` is the largest distance of the turn's earlier blocks (−1: none). Block j
   * is cached by an LRU cache of C blocks iff max(m, d0 + j) < C.
   */
  run(cls: number, d0: number, m: number, len: number, tokens: number): void;
  /** The counted turn ends. */
  endTurn(): void;
}

/** `worker`: every worker's turns into one sink; `byWorker`: each worker's turns into its own sink as well. */
export type PassSinks = { worker?: RunSink; byWorker?: (workerId: string) => RunSink; shared?: RunSink };
/** Counted turns with a chain and no worker (misses in the per-worker scope); distinct blocks seen; workers. */
export type PassStats = { unrouted: number; distinct: number; workers: number };

/** A trajectory's ids in the shared stack, naming its last chain. */
type Trajectory = { ids: Int32Array };

/** The largest cache each scope is asked about, in blocks: blocks farther down the stacks are dropped. */
export type PassLimits = { worker: number; shared: number };

/** Run the window through the stacks of the scopes that have a sink. */
export function stackPass(w: PreparedWindow, sinks: PassSinks, limits: PassLimits): PassStats {
  const blocks = w.fresh + 1;
  const shared = new SharedStack(limits.shared, blocks);
  const workers = new IdStacks(limits.worker, blocks);
  const pool = new IdPool();
  const trajectories = new Map<string, Trajectory>();
  const runs = turnRuns(w.longest);
  let unrouted = 0;
  for (let k = 0; k < w.order.length; k++) {
    const t = w.turns[w.order[k]!]!;
    const n = chainLength(t);
    if (n === 0) continue;
    const counted = t.phase === "window";
    let tr = trajectories.get(t.trajectoryId);
    if (!tr) trajectories.set(t.trajectoryId, (tr = { ids: NO_IDS }));
    const reuse = w.common[k]!;
    pool.room(tr, n, reuse);
    shared.resolve(t.blocks!, n, tr.ids, reuse);
    const shape = shapeOf(w.shapes, t);
    if (sinks.shared) {
      shared.touch(tr.ids, n, runs, counted);
      if (counted) emitRuns(runs, sinks.shared, t, n, shape, w.blockSize);
    }
    const perWorker = sinks.worker ?? sinks.byWorker;
    if (perWorker && t.workerId === null && counted) unrouted++;
    if (perWorker && t.workerId !== null) {
      workers.touch(workers.indexOf(t.workerId), tr.ids, n, runs, counted, shared.size);
      if (counted && sinks.worker) emitRuns(runs, sinks.worker, t, n, shape, w.blockSize);
      if (counted && sinks.byWorker) emitRuns(runs, sinks.byWorker(t.workerId), t, n, shape, w.blockSize);
    }
    if (w.lastTurn.get(t.trajectoryId) === k) {
      pool.give(tr.ids);
      trajectories.delete(t.trajectoryId);
    }
  }
  return { unrouted, distinct: shared.size, workers: workers.count };
}

const NO_IDS = new Int32Array(0);

/** Id arrays by size (powers of two), handed back when a trajectory ends: fewer large allocations to collect. */
class IdPool {
  private free = new Map<number, Int32Array[]>();

  /** Grow a trajectory's id array to hold `n`, keeping its first `keep` ids. */
  room(tr: Trajectory, n: number, keep: number): void {
    if (tr.ids.length >= n) return;
    let size = 64;
    while (size < n) size *= 2;
    const ids = this.free.get(size)?.pop() ?? new Int32Array(size);
    ids.set(tr.ids.subarray(0, keep));
    this.give(tr.ids);
    tr.ids = ids;
  }

  give(ids: Int32Array): void {
    if (ids.length === 0) return;
    const list = this.free.get(ids.length);
    if (list) list.push(ids);
    else this.free.set(ids.length, [ids]);
  }
}

/** The turn's seen runs cut at its class boundaries and at its last, partial block. */
function emitRuns(runs: TurnRuns, sink: RunSink, t: RecordedTurn, n: number, s: TurnShape, bs: number): void {
  const full = Math.floor(t.inputTokens / bs);
  const end = Math.min(runs.unseen, n, Math.ceil(t.inputTokens / bs));
  let m = -1;
  for (let r = 0; r < runs.count; r++) {
    const start = runs.at[r]!;
    if (start >= end) break;
    const stop = Math.min(start + runs.len[r]!, end);
    const d = runs.dist[r]!;
    for (let pos = start; pos < stop;) {
      const cls = pos < s.firstBlocks ? s.firstClass : pos < s.sharedBlocks ? SEG_TOOLS : s.own;
      const classEnd = pos < s.firstBlocks ? s.firstBlocks : pos < s.sharedBlocks ? s.sharedBlocks : stop;
      const next = Math.min(stop, classEnd, pos < full ? full : pos + 1);
      const d0 = d + (pos - start);
      sink.run(cls, d0, m, next - pos, pos < full ? bs : t.inputTokens - full * bs);
      m = Math.max(m, d0 + next - pos - 1);
      pos = next;
    }
  }
  sink.endTurn();
}
