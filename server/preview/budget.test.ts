import { describe, expect, it } from "vitest";
import { BlockPool } from "../sim/block-pool";
import { PrefixIndex } from "../sim/prefix-index";
import {
  estimatePreviewBytes,
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

  it("a small recorded cluster still allows 16 more workers and 64,000 blocks; unknown figures take the assumed ones", () => {
    const small: RecordedCluster = { workers: 1, maxKvBlocks: 100, blockSize: null };
    expect(overrideProblems({ workers: 17, kv_total_blocks: 64_000, block_size: 64 }, small)).toEqual([]);
    expect(overrideProblems({ workers: 18, kv_total_blocks: 64_001, block_size: 16 }, small)).toEqual([
      { path: "cluster.workers", message: "at most 17 (4× the 1 recorded workers, or 16 more)" },
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

  it("grows with the pools the replay allocates and the blocks it caches", () => {
    const base = estimatePreviewBytes({ workers: 8, kvBlocks: 20_000, blockSize: 64 }, hour, 64);
    const double = estimatePreviewBytes({ workers: 16, kvBlocks: 20_000, blockSize: 64 }, hour, 64);
    expect(double).toBeGreaterThan(base);
    expect(base).toBeGreaterThan(PREVIEW_COSTS.baseBytes);
    expect(base).toBeLessThan(512 * MB);
  });

  it("puts the probe's cluster far over any limit and the recorded steady cluster under the default", () => {
    const probe = estimatePreviewBytes({ workers: 256, kvBlocks: 4_194_304, blockSize: 1 }, hour, 64);
    expect(probe / MB).toBeGreaterThan(100_000);
    const steady = replayedCluster(null, RECORDED);
    expect(estimatePreviewBytes(steady, hour, 64) / MB).toBeLessThan(512);
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

describe("memoryRefusal", () => {
  it.each<[number, number, string | null]>([
    [100 * MB, 512, null],
    [512 * MB, 512, null],
    [
      18_400 * MB,
      512,
      "this preview would need about 18,400 MB of memory; the limit is 512 MB (SWITCHYARD_PREVIEW_MEMORY_MB): choose a shorter window or a smaller cluster",
    ],
  ])("%d bytes under %d MB", (bytes, limit, refusal) => {
    expect(memoryRefusal(bytes, limit)).toBe(refusal);
  });
});
