import { ASSUMED_BLOCK_SIZE, ASSUMED_KV_BLOCKS } from "./cluster-shape";
import type { ClusterOverride } from "./types";

// What a preview may ask for, decided before anything is read or allocated: bounds on the cluster override relative to
// what was recorded, and an estimate of the replay's memory from the cluster it would build and the window's size.
// Pure: the router reads the recorded workers and the window's counts and passes them in.

/**
 * Bounds of a cluster override, relative to the window's recorded cluster: workers at most 4× the recorded count or
 * 16 more (whichever is larger); KV blocks per worker at most 8× the largest recorded worker (or 64,000, whichever is
 * larger); block size no smaller than the recorded one (the recorded chains cannot be split finer) and at most 16×.
 */
export const OVERRIDE_BOUNDS = {
  workersFactor: 4,
  workersExtra: 16,
  kvFactor: 8,
  kvFloor: 64_000,
  blockSizeMaxFactor: 16,
} as const;

/**
 * Measured costs (Node 20, bench of the block pool and replays of the pressure window): a worker's block pool
 * allocates 48 bytes per block up front (records 24, TTL heap 12, release times 8, free list 4; 50 MB of array
 * buffers for a million blocks), kept here as 50; the prefix index holds about 24 bytes per cached block plus 4 per
 * worker slot that uses it; a recorded turn costs about 1 KB with its result rows and each recorded block 8 bytes of
 * chain. A preview may replay its baseline and its candidate at the same time (the helper thread), so pools and index
 * count twice. A thread, its V8 heap and the replay's code start at about 64 MB.
 */
export const PREVIEW_COSTS = {
  baseBytes: 64 * 1024 * 1024,
  poolBytesPerBlock: 50,
  indexBytesPerBlock: 24,
  indexBytesPerBlockPerWorker: 4,
  turnBytes: 1024,
  chainBytesPerBlock: 8,
  concurrentRuns: 2,
} as const;

/** The cluster recorded in the window (null figures: not observed). */
export type RecordedCluster = { workers: number; maxKvBlocks: number | null; blockSize: number | null };
/** The window's requests (warm-up and the minutes after included) and their prompt tokens. */
export type WindowSize = { requests: number; inputTokens: number };

export type BoundProblem = { path: string; message: string };

/** The override's fields outside OVERRIDE_BOUNDS, each naming its bound; empty when it may be replayed. */
export function overrideProblems(o: ClusterOverride, recorded: RecordedCluster): BoundProblem[] {
  const b = OVERRIDE_BOUNDS;
  const problems: BoundProblem[] = [];
  const workers = Math.max(1, recorded.workers);
  const maxWorkers = Math.max(b.workersFactor * workers, workers + b.workersExtra);
  if (o.workers > maxWorkers)
    problems.push({
      path: "cluster.workers",
      message: `at most ${maxWorkers} (${b.workersFactor}× the ${recorded.workers} recorded workers, or ${b.workersExtra} more)`,
    });
  const kv = recorded.maxKvBlocks ?? ASSUMED_KV_BLOCKS;
  const maxKv = Math.max(b.kvFactor * kv, b.kvFloor);
  if (o.kv_total_blocks > maxKv)
    problems.push({
      path: "cluster.kv_total_blocks",
      message: `at most ${maxKv} (${b.kvFactor}× the largest recorded worker's ${kv} blocks, or ${b.kvFloor})`,
    });
  const size = recorded.blockSize ?? ASSUMED_BLOCK_SIZE;
  if (o.block_size < size)
    problems.push({
      path: "cluster.block_size",
      message: `no smaller than the recorded ${size} tokens per block (the recorded chains cannot be split finer)`,
    });
  else if (o.block_size > b.blockSizeMaxFactor * size)
    problems.push({
      path: "cluster.block_size",
      message: `at most ${b.blockSizeMaxFactor * size} (${b.blockSizeMaxFactor}× the recorded ${size} tokens per block)`,
    });
  return problems;
}

/** The cluster a replay builds: the override, else the recorded one (assumed figures where none was observed). */
export function replayedCluster(
  o: ClusterOverride | null,
  recorded: RecordedCluster,
): { workers: number; kvBlocks: number; blockSize: number } {
  if (o) return { workers: o.workers, kvBlocks: o.kv_total_blocks, blockSize: o.block_size };
  return {
    workers: Math.max(1, recorded.workers),
    kvBlocks: recorded.maxKvBlocks ?? ASSUMED_KV_BLOCKS,
    blockSize: recorded.blockSize ?? ASSUMED_BLOCK_SIZE,
  };
}

/** Estimated peak memory of a preview in bytes (see PREVIEW_COSTS for where each term comes from). */
export function estimatePreviewBytes(
  cluster: { workers: number; kvBlocks: number; blockSize: number },
  window: WindowSize,
  recordedBlockSize: number | null,
): number {
  const c = PREVIEW_COSTS;
  const capacity = cluster.workers * cluster.kvBlocks;
  const replayedBlocks = Math.ceil(window.inputTokens / cluster.blockSize);
  const chainBlocks = Math.ceil(window.inputTokens / (recordedBlockSize ?? cluster.blockSize));
  const cached = Math.min(capacity, replayedBlocks);
  const perRun =
    capacity * c.poolBytesPerBlock + cached * (c.indexBytesPerBlock + c.indexBytesPerBlockPerWorker * cluster.workers);
  return c.baseBytes + c.concurrentRuns * perRun + window.requests * c.turnBytes + chainBlocks * c.chainBytesPerBlock;
}

const MB = 1024 * 1024;

/** The refusal for an estimate over the limit (both in bytes / MB), naming the setting; null when it fits. */
export function memoryRefusal(estimateBytes: number, limitMb: number): string | null {
  if (estimateBytes <= limitMb * MB) return null;
  const mb = Math.ceil(estimateBytes / MB).toLocaleString("en-US");
  return (
    `this preview would need about ${mb} MB of memory; the limit is ${limitMb.toLocaleString("en-US")} MB ` +
    "(SWITCHYARD_PREVIEW_MEMORY_MB): choose a shorter window or a smaller cluster"
  );
}
