import { describe, expect, it } from "vitest";
import { BlockPool } from "../sim/block-pool";
import { PrefixIndex } from "../sim/prefix-index";
import {
  estimatePreviewBytes,
  gpuBudgetOf,
  memoryRefusal,
  overrideProblems,
  PREVIEW_COSTS,
  replayedCluster,
  type RecordedCluster,
} from "./budget";

const RECORDED: RecordedCluster = { workers: 8, maxKvBlocks: 20_000, blockSize: 64 };
const MB = 1024 * 1024;

describe("overrideProblems", () => {
  it.each<[string, { workers: number; kv_total_blocks: number; block_size: number }, string[]]>([
    ["the recorded cluster itself", { workers: 8, kv_total_blocks: 20_000, block_size: 64 }, []],
    ["the largest allowed", { workers: 32, kv_total_blocks: 160_000, block_size: 1024 }, []],
    ["one worker too many", { workers: 33, kv_total_blocks: 20_000, block_size: 64 }, ["cluster.workers"]],
    ["one block too many", { workers: 8, kv_total_blocks: 160_001, block_size: 64 }, ["cluster.kv_total_blocks"]],
    ["a finer block size", { workers: 8, kv_total_blocks: 20_000, block_size: 32 }, ["cluster.block_size"]],
    ["a block size over 16×", { workers: 8, kv_total_blocks: 20_000, block_size: 1025 }, ["cluster.block_size"]],
    [
      "the probe's request",
      { workers: 256, kv_total_blocks: 4_194_304, block_size: 1 },
      ["cluster.workers", "cluster.kv_total_blocks", "cluster.block_size"],
    ],
  ])("%s", (_name, o, paths) => {
    expect(overrideProblems(o, RECORDED).map((p) => p.path)).toEqual(paths);
  });

  it("a large recorded cluster is held to the simulator's 32 workers", () => {
    const large: RecordedCluster = { workers: 12, maxKvBlocks: 20_000, blockSize: 64 };
    expect(overrideProblems({ workers: 32, kv_total_blocks: 20_000, block_size: 64 }, large)).toEqual([]);
    expect(overrideProblems({ workers: 33, kv_total_blocks: 20_000, block_size: 64 }, large)).toEqual([
      {
        path: "cluster.workers",
        message: "at most 32 (4× the 12 recorded workers, or 16 more; the simulator runs at most 32)",
      },
    ]);
  });

  it("a small recorded cluster still allows 16 more workers and 64,000 blocks; unknown figures take the assumed ones", () => {
    const small: RecordedCluster = { workers: 1, maxKvBlocks: 100, blockSize: null };
    expect(overrideProblems({ workers: 17, kv_total_blocks: 64_000, block_size: 64 }, small)).toEqual([]);
    expect(overrideProblems({ workers: 18, kv_total_blocks: 64_001, block_size: 16 }, small)).toEqual([
      {
        path: "cluster.workers",
        message: "at most 17 (4× the 1 recorded workers, or 16 more; the simulator runs at most 32)",
      },
      {
        path: "cluster.kv_total_blocks",
        message: "at most 64000 (8× the largest recorded worker's 100 blocks, or 64000)",
      },
      {
        path: "cluster.block_size",
        message: "no smaller than the recorded 64 tokens per block (the recorded chains cannot be split finer)",
      },
    ]);
  });
});

describe("estimatePreviewBytes", () => {
  const hour = { requests: 2_000, inputTokens: 2_000 * 60_000 };
  const DEFAULT_BUDGETS: [number, number] = [16, 16];
  const cluster = (workers: number, kvBlocks: number, blockSize: number, budgets = DEFAULT_BUDGETS) =>
    replayedCluster({ workers, kv_total_blocks: kvBlocks, block_size: blockSize }, RECORDED, budgets);

  it("grows with the pools the replay allocates and the blocks it caches", () => {
    const base = estimatePreviewBytes(cluster(8, 20_000, 64), hour, 64);
    expect(estimatePreviewBytes(cluster(24, 20_000, 64), hour, 64)).toBeGreaterThan(base);
    expect(estimatePreviewBytes(cluster(8, 40_000, 64), hour, 64)).toBeGreaterThan(base);
    expect(base).toBeGreaterThan(PREVIEW_COSTS.baseBytes);
    expect(base).toBeLessThan(512 * MB);
  });

  it.each<[string, number, number, [number, number]]>([
    ["the workers it starts with, when over the budget", 24, 16, [24, 24]],
    ["the default budget of 16 it may scale up to", 2, 16, [16, 16]],
    ["a candidate autoscaling document's own budget", 2, 16, [16, 4]],
    ["never more than the simulator's 32", 256, 4096, [32, 32]],
  ])("a run's peak workers: %s", (_name, workers, base, peak) => {
    const candidate = peak[1] < base ? peak[1] : base;
    expect(cluster(workers, 20_000, 64, [base, candidate]).peak).toEqual(peak);
  });

  it("counts each run at its peak: a candidate that scales to 32 workers costs its pools", () => {
    const small = estimatePreviewBytes(cluster(2, 64_000, 64, [2, 2]), hour, 64);
    const grown = estimatePreviewBytes(cluster(2, 64_000, 64, [2, 32]), hour, 64);
    expect(grown - small).toBeGreaterThan(30 * 64_000 * PREVIEW_COSTS.poolBytesPerBlock);
  });

  it("puts the probe's cluster far over any limit and the recorded cluster under the default", () => {
    const probe = estimatePreviewBytes(cluster(256, 4_194_304, 1), hour, 64);
    expect(probe / MB).toBeGreaterThan((2 * 32 * 4_194_304 * 48) / MB);
    const recorded = replayedCluster(null, RECORDED, DEFAULT_BUDGETS);
    expect(estimatePreviewBytes(recorded, hour, 64) / MB).toBeLessThan(512);
  });

  // Peak RSS growth measured for replays of recorded windows in the preview threads (see PREVIEW_COSTS): the estimate
  // must never be below what a preview took. Figures: requests and prompt tokens of the loaded window, the recorded
  // workers, KV blocks and block size, the override (workers, KV blocks, block size; null: as recorded), MB taken.
  it.each<[string, number, number, [number, number, number], [number, number, number] | null, number]>([
    ["steady, 10 min", 9_042, 539_730_236, [8, 10_500, 64], null, 349],
    ["steady, 30 min", 14_032, 857_343_605, [8, 10_500, 64], null, 595],
    ["steady, 60 min", 16_202, 987_875_562, [8, 10_500, 64], null, 750],
    ["short requests, 10 min", 107_693, 8_615_440, [4, 4_096, 16], null, 725],
    ["short requests, 30 min", 169_231, 13_538_480, [4, 4_096, 16], null, 984],
    ["short requests, 60 min", 196_923, 15_753_840, [4, 4_096, 16], null, 1_324],
    ["pressure, 10 min", 342, 22_365_557, [2, 2_500, 64], null, 50],
    ["steady, 10 min on 32 × 16,384 blocks", 9_042, 539_730_236, [8, 10_500, 64], [32, 16_384, 64], 481],
    ["steady, 10 min on 32 × 84,000 blocks", 9_042, 539_730_236, [8, 10_500, 64], [32, 84_000, 64], 624],
    ["short requests, 10 min on 17 × 32,768", 107_693, 8_615_440, [4, 4_096, 16], [17, 32_768, 16], 736],
    ["steady, 10 min in 16-token blocks", 9_042, 539_730_236, [8, 10_500, 64], [8, 10_500, 16], 1_122],
    ["steady, 10 min in 256-token blocks", 9_042, 539_730_236, [8, 10_500, 64], [8, 10_500, 256], 302],
  ])("is at least what %s took", (_name, requests, inputTokens, [workers, kv, size], override, tookMb) => {
    const recorded: RecordedCluster = { workers, maxKvBlocks: kv, blockSize: size };
    const o = override && { workers: override[0], kv_total_blocks: override[1], block_size: override[2] };
    const estimate = estimatePreviewBytes(
      replayedCluster(o, recorded, DEFAULT_BUDGETS),
      { requests, inputTokens },
      size,
    );
    expect(estimate / MB).toBeGreaterThanOrEqual(tookMb);
    // and not so far above it that ordinary windows are refused for nothing
    expect(estimate / MB).toBeLessThan(3 * tookMb + 64);
  });

  it("a block pool's up-front allocation is within the stated cost per block", () => {
    const before = process.memoryUsage().arrayBuffers;
    const index = new PrefixIndex();
    const pool = new BlockPool(1_000_000, index, 0);
    const perBlock = (process.memoryUsage().arrayBuffers - before) / 1_000_000;
    expect(pool.capacity).toBe(1_000_000);
    expect(perBlock).toBeGreaterThan(40);
    expect(perBlock).toBeLessThanOrEqual(PREVIEW_COSTS.poolBytesPerBlock + 2);
  });
});

describe("gpuBudgetOf", () => {
  it.each<[unknown, number]>([
    [{ max_gpu_budget: 24 }, 24],
    [{}, 0],
    [null, 0],
    [{ max_gpu_budget: "64" }, 0],
  ])("%j: %d", (doc, budget) => {
    expect(gpuBudgetOf(doc)).toBe(budget);
  });
});

describe("memoryRefusal", () => {
  it.each<[number, number, string | null]>([
    [100 * MB, 512, null],
    [512 * MB, 512, null],
    [
      18_400 * MB,
      512,
      "this preview would need about 18,400 MB of memory; the limit is 512 MB (SWITCHYARD_PREVIEW_MEMORY_MB): choose a shorter window or a smaller cluster, or raise the limit",
    ],
  ])("%d bytes under %d MB", (bytes, limit, refusal) => {
    expect(memoryRefusal(bytes, limit)).toBe(refusal);
  });
});
