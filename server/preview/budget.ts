import { MAX_WORKERS } from "../sim/cluster";
import { ASSUMED_BLOCK_SIZE, ASSUMED_KV_BLOCKS } from "./cluster-shape";
import type { ClusterOverride } from "./types";

// What a preview may ask for, decided before anything is read or allocated: bounds on the cluster override relative to
// what was recorded, and an estimate of the replay's memory from the cluster it would build and the window's size.
// Pure: the router reads the recorded workers, the window's counts and the autoscaling budgets and passes them in.

/**
 * Bounds of a cluster override, relative to the window's recorded cluster: workers at most 4× the recorded count or
 * 16 more (whichever is larger) and never over the simulator's 32; KV blocks per worker at most 8× the largest
 * recorded worker (or 64,000, whichever is larger); block size no smaller than the recorded one (the recorded chains
 * cannot be split finer) and at most 16×. The simulator needs no other block-size rule (any size from 1 token works).
 */
export const OVERRIDE_BOUNDS = {
  workersFactor: 4,
  workersExtra: 16,
  kvFactor: 8,
  kvFloor: 64_000,
  blockSizeMaxFactor: 16,
} as const;

/**
 * What a preview costs, measured on Node 20 as the peak RSS growth of a process whose two preview threads had already
 * started (each thread's own start, ~100 MB, is the dashboard's, not the preview's):
 * - a worker's block pool allocates 48 bytes per block up front (records 24, TTL heap 12, release times 8, free list
 *   4): pools of 2^18, 2^20 and 2^22 blocks, one and four at a time, grew arrayBuffers by 48.1–50.3 bytes per block
 *   (RSS by 27–30: the TTL heap and release times are touched only as blocks are used), kept here as 50;
 * - each worker adds its prefix-index slot array (256 KB, doubling as the index grows) and its engine state;
 * - the window: replays of recorded windows (steady scenario 10/30/60 min: 9,042/14,032/16,202 requests and
 *   8.4/13.4/15.4 M recorded blocks took 349/595/750 MB; 108k/169k/197k short requests of 5 blocks took
 *   725/984/1,324 MB; the pressure scenario's 342 requests 50 MB) fit under 7 KiB per request (its row, turn,
 *   simulated request and collector entries in both runs) plus 48 bytes per block of the window's prompts (the chain
 *   and its row's copy, the trajectories' token streams and hash views, the index's entries for the hashes);
 * - the 32-worker replays of the same windows (32 × 16,384 blocks: 481 MB; 32 × 84,000: 624 MB) stayed under the
 *   pools and index counted for both runs at once (the baseline replays in the helper thread beside the candidate).
 * Since 2026-12-07 a trajectory's turns share one chain buffer and one thread's runs share their prompts: the steady
 * hour's preview peaked 605–623 MB above the process's RSS before it with the helper thread and 389–395 MB on one
 * thread, against 846–870 and 573–577 MB measured the same way before. The costs are kept: they now overstate windows
 * of long chains by about that much. Later that day a window's prompts came to be made before its first run and each
 * block marked (recorded-prompts.ts: 1 byte a block kept, about 21 a block for a moment before the runs start), and a
 * replay without lifecycle eviction to record no trajectory's stored blocks (8 bytes a stored block): a process running
 * only the steady hour's one-thread preview then peaked at 408–410 MB against 438–443 before.
 */
export const PREVIEW_COSTS = {
  baseBytes: 64 * 1024 * 1024,
  poolBytesPerBlock: 50,
  workerBytes: 512 * 1024,
  indexBytesPerBlock: 24,
  indexBytesPerBlockPerWorker: 4,
  requestBytes: 7 * 1024,
  windowBytesPerBlock: 48,
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
  const maxWorkers = Math.min(MAX_WORKERS, Math.max(b.workersFactor * workers, workers + b.workersExtra));
  if (o.workers > maxWorkers)
    problems.push({
      path: "cluster.workers",
      message: `at most ${maxWorkers} (${b.workersFactor}× the ${recorded.workers} recorded workers, or ${b.workersExtra} more; the simulator runs at most ${MAX_WORKERS})`,
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

/** The cluster a replay builds, and the most workers each of its runs (baseline, candidate) may come to hold. */
export type ReplayedCluster = { workers: number; kvBlocks: number; blockSize: number; peak: [number, number] };

/**
 * The most workers a run can hold: those it starts with, or as many as its planner may scale up to (the autoscaling
 * document's max_gpu_budget, which bounds every role's max_replicas), never more than the simulator's 32.
 */
export function peakWorkers(initial: number, gpuBudget: number): number {
  return Math.min(MAX_WORKERS, Math.max(initial, gpuBudget));
}

/**
 * The cluster a replay builds: the override, else the recorded one (assumed figures where none was observed).
 * `budgets`: the largest max_gpu_budget the baseline's and the candidate's autoscaling documents may have.
 */
export function replayedCluster(
  o: ClusterOverride | null,
  recorded: RecordedCluster,
  budgets: [number, number],
): ReplayedCluster {
  const workers = o ? o.workers : Math.max(1, recorded.workers);
  return {
    workers,
    kvBlocks: o ? o.kv_total_blocks : (recorded.maxKvBlocks ?? ASSUMED_KV_BLOCKS),
    blockSize: o ? o.block_size : (recorded.blockSize ?? ASSUMED_BLOCK_SIZE),
    peak: [peakWorkers(workers, budgets[0]), peakWorkers(workers, budgets[1])],
  };
}

/**
 * Estimated peak memory of a preview in bytes (PREVIEW_COSTS says where each term comes from): the window once, and
 * each run's pools and index at its peak worker count, both runs held at once.
 */
export function estimatePreviewBytes(
  cluster: ReplayedCluster,
  window: WindowSize,
  recordedBlockSize: number | null,
): number {
  const c = PREVIEW_COSTS;
  const finest = Math.min(cluster.blockSize, recordedBlockSize ?? cluster.blockSize);
  const windowBlocks = Math.ceil(window.inputTokens / finest);
  const replayedBlocks = Math.ceil(window.inputTokens / cluster.blockSize);
  const run = (workers: number) => {
    const capacity = workers * cluster.kvBlocks;
    const indexed = Math.min(capacity, replayedBlocks);
    return (
      workers * c.workerBytes +
      capacity * c.poolBytesPerBlock +
      indexed * (c.indexBytesPerBlock + c.indexBytesPerBlockPerWorker * workers)
    );
  };
  return (
    c.baseBytes +
    window.requests * c.requestBytes +
    windowBlocks * c.windowBytesPerBlock +
    run(cluster.peak[0]) +
    run(cluster.peak[1])
  );
}

const MB = 1024 * 1024;

/** The refusal for an estimate over the limit (both in bytes / MB), naming the setting; null when it fits. */
export function memoryRefusal(estimateBytes: number, limitMb: number): string | null {
  if (estimateBytes <= limitMb * MB) return null;
  const mb = Math.ceil(estimateBytes / MB).toLocaleString("en-US");
  return (
    `this preview would need about ${mb} MB of memory; the limit is ${limitMb.toLocaleString("en-US")} MB ` +
    "(SWITCHYARD_PREVIEW_MEMORY_MB): choose a shorter window or a smaller cluster, or raise the limit"
  );
}

/** An autoscaling document's max_gpu_budget; 0 when it names none (its defaults are counted apart). */
export function gpuBudgetOf(doc: unknown): number {
  const budget = typeof doc === "object" && doc !== null ? (doc as { max_gpu_budget?: unknown }).max_gpu_budget : null;
  return typeof budget === "number" && Number.isFinite(budget) ? budget : 0;
}
