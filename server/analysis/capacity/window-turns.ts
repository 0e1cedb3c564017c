import { AppError } from "../../errors";
import { prefixShapes } from "../../preview/prefix-shape";
import type { RecordedTurn, ReplayInput } from "../../preview/types";
import { SEG_CONVERSATION, SEG_SUBAGENT, SEG_TOOLS, SEGMENT_NAMES } from "../../sim/stream";

// The recorded turns a capacity pass reads: warm-up and window turns in arrival order (turns after the window are
// left out), one block size, and each trajectory's prompt shape, which names the retention class of every block.

/** Retention classes hit tokens are split by: a trajectory's opening segment, tool definitions, its own blocks. */
export const CAPACITY_CLASSES = SEGMENT_NAMES;
export type CapacityClass = (typeof SEGMENT_NAMES)[number];

/** A window's recorded turns, as the policy preview loads them (loadWindow). */
export type CapacityWindow = {
  turns: readonly RecordedTurn[];
  firstRuns?: ReplayInput["firstRuns"];
  /** Tokens per block of turns that record none (the cluster's); needed only when such a turn has a chain. */
  blockSize?: number | null;
};

/** Block classes of a trajectory: `firstBlocks` of `firstClass`, tool definitions up to `sharedBlocks`, then `own`. */
export type TurnShape = { firstBlocks: number; sharedBlocks: number; firstClass: number; own: number };

export type PreparedWindow = {
  turns: readonly RecordedTurn[];
  /** Indexes into `turns` of the warm-up and window turns, oldest first. */
  order: Int32Array;
  blockSize: number;
  shapes: Map<string, TurnShape>;
  /** Position in `order` of each trajectory's last turn (its state is dropped after it). */
  lastTurn: Map<string, number>;
  /** Window turns (counted), those with a chain, their input tokens, their chained tokens per class. */
  counted: number;
  chained: number;
  inputTokens: number;
  classTokens: number[];
  /** Blocks touched by warm-up and window turns; the longest chain in blocks. */
  accesses: number;
  longest: number;
  /** Per position in `order`: leading blocks the turn shares with its trajectory's previous turn with a chain. */
  common: Int32Array;
  /** Blocks not shared that way, summed: at least the distinct blocks of the window. */
  fresh: number;
  /** Workers the turns with chains were routed to. */
  workers: number;
};

const NO_SHAPE: TurnShape = { firstBlocks: 0, sharedBlocks: 0, firstClass: SEG_CONVERSATION, own: SEG_CONVERSATION };

/** Blocks of a turn's chain. */
export const chainLength = (t: RecordedTurn): number => (t.blocks ? t.blocks.length >> 1 : 0);

/**
 * Order, block size and shapes of a window; throws (422) when turns with chains record different block sizes, or
 * none and no cluster block size is given.
 */
export function prepareWindow(w: CapacityWindow): PreparedWindow {
  const idx: number[] = [];
  for (let i = 0; i < w.turns.length; i++) if (w.turns[i]!.phase !== "after") idx.push(i);
  const sorted = idx.every((v, k) => k === 0 || w.turns[idx[k - 1]!]!.arrivedAt <= w.turns[v]!.arrivedAt);
  if (!sorted) idx.sort((a, b) => w.turns[a]!.arrivedAt - w.turns[b]!.arrivedAt || a - b);
  const order = Int32Array.from(idx);
  const sizes = new Set<number | null>();
  const lastTurn = new Map<string, number>();
  const previous = new Map<string, Uint32Array>();
  const routed = new Set<string>();
  const common = new Int32Array(order.length);
  let accesses = 0;
  let longest = 0;
  let fresh = 0;
  for (let k = 0; k < order.length; k++) {
    const t = w.turns[order[k]!]!;
    const n = chainLength(t);
    if (n === 0) continue;
    sizes.add(t.blockSize ?? w.blockSize ?? null);
    lastTurn.set(t.trajectoryId, k);
    if (t.workerId !== null) routed.add(t.workerId);
    const before = previous.get(t.trajectoryId);
    common[k] = before ? commonBlocks(before, t.blocks!) : 0;
    previous.set(t.trajectoryId, t.blocks!);
    fresh += n - common[k]!;
    accesses += n;
    longest = Math.max(longest, n);
  }
  if (sizes.has(null))
    throw new AppError("UNPROCESSABLE", "turns record no block size and the cluster's block size is not known");
  if (sizes.size > 1)
    throw new AppError(
      "UNPROCESSABLE",
      `the window mixes block sizes: ${[...sizes].sort((a, b) => a! - b!).join(", ")} tokens per block (one capacity curve needs one block size)`,
    );
  const blockSize = (sizes.values().next().value as number | undefined) ?? w.blockSize ?? 1;
  if (!Number.isInteger(blockSize) || blockSize < 1)
    throw new AppError("UNPROCESSABLE", `block size ${blockSize}: tokens per block must be a whole number, at least 1`);
  const shapes = new Map<string, TurnShape>();
  for (const [traj, s] of prefixShapes(w.turns, w.firstRuns ?? []))
    shapes.set(traj, {
      firstBlocks: s.firstBlocks,
      sharedBlocks: Math.max(s.firstBlocks, s.sharedBlocks),
      firstClass: s.firstSegment,
      own: SEG_CONVERSATION,
    });
  for (const t of w.turns)
    if (t.parentTrajectoryId)
      shapes.set(t.trajectoryId, { ...(shapes.get(t.trajectoryId) ?? NO_SHAPE), own: SEG_SUBAGENT });
  let counted = 0;
  let chained = 0;
  let inputTokens = 0;
  const classTokens = CAPACITY_CLASSES.map(() => 0);
  for (let k = 0; k < order.length; k++) {
    const t = w.turns[order[k]!]!;
    if (t.phase !== "window") continue;
    counted++;
    inputTokens += t.inputTokens;
    const n = chainLength(t);
    if (n === 0) continue;
    chained++;
    const s = shapeOf(shapes, t);
    let pos = 0;
    for (const [end, cls] of [
      [s.firstBlocks, s.firstClass],
      [s.sharedBlocks, SEG_TOOLS],
      [n, s.own],
    ] as const) {
      if (end > pos) classTokens[cls]! += chainTokens(t, blockSize, pos, Math.min(end, n));
      pos = Math.max(pos, end);
    }
  }
  return {
    turns: w.turns,
    order,
    blockSize,
    shapes,
    lastTurn,
    counted,
    chained,
    inputTokens,
    classTokens,
    accesses,
    longest,
    common,
    fresh,
    workers: routed.size,
  };
}

/** Blocks two chains (hash pairs) share at their start. */
export function commonBlocks(a: Uint32Array, b: Uint32Array): number {
  const m = Math.min(a.length, b.length) & ~1;
  if (a === b) return m >> 1;
  let i = 0;
  while (i < m && a[i] === b[i]) i++;
  return i >> 1;
}

/** A turn's shape (a subagent's own blocks are its state, not conversation). */
export const shapeOf = (shapes: Map<string, TurnShape>, t: RecordedTurn): TurnShape =>
  shapes.get(t.trajectoryId) ?? NO_SHAPE;

/** Input tokens of a turn that blocks [from, to) of its chain cover (a cached prefix never exceeds the prompt). */
export function chainTokens(t: RecordedTurn, blockSize: number, from: number, to: number): number {
  return Math.max(0, Math.min(to * blockSize, t.inputTokens) - Math.min(from * blockSize, t.inputTokens));
}
