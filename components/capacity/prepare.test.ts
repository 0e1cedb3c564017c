import { describe, expect, it } from "vitest";
import { answerWords, chartRows, lruAt, replayTargets, workerRows, type CapacityBody } from "./prepare";

const pt = (blocks: number, hit: number) => ({
  blocks,
  tokens: blocks * 16,
  gigabytes: blocks * 0.004,
  hit_rate: hit,
  hit_tokens: hit * 1000,
});
const size = (blocks: number, hit: number) => ({
  blocks,
  tokens: blocks * 16,
  gigabytes: blocks * 0.004,
  hit_rate: hit,
});

const body = (o: Partial<CapacityBody> = {}): CapacityBody => ({
  cluster: "c",
  model: null,
  from: 0,
  to: 1,
  deleted: [],
  kv_source: "",
  today_source: "",
  empty: null,
  turns: 10,
  input_tokens: 1000,
  block_size: 16,
  bytes_per_token: 250,
  workers: 2,
  today_blocks: 100,
  per_worker: { points: [pt(0, 0), pt(100, 0.4), pt(200, 0.6), pt(400, 0.7)] },
  curves: [
    { scope: "shared", turns: 10, input_tokens: 1000, points: [pt(0, 0), pt(100, 0.5), pt(200, 0.7), pt(400, 0.8)] },
    { scope: "worker:w1", turns: 6, input_tokens: 600, points: [pt(0, 0), pt(100, 0.3), pt(200, 0.5), pt(400, 0.6)] },
  ],
  knee: { per_worker: size(200, 0.6), shared: null },
  answer: null,
  tiers: null,
  ...o,
});

describe("capacity page figures", () => {
  it("puts the curves and the replayed points on one per-worker axis", () => {
    const rows = chartRows(body(), {
      measured_hit_rate: 0.4,
      notes: [],
      points: [{ blocks: 150, hit_rate: 0.45, refused: 0, evictions: 0, elapsed_ms: 1 }],
    });
    expect(rows.map((r) => [r.blocks, r.perWorker, r.shared, r.replayed])).toEqual([
      [0, 0, 0, undefined],
      [100, 40, 50, undefined],
      [150, undefined, undefined, 45],
      [200, 60, 70, undefined],
      [400, 70, 80, undefined],
    ]);
    expect(rows[1]!.gb).toBeCloseTo((100 * 16 * 250) / 1e9, 12);
  });

  it("replays today's size, the knee and the largest, once each", () => {
    expect(replayTargets(body())).toEqual([100, 200, 400]);
    expect(replayTargets(body({ today_blocks: null, knee: { per_worker: size(400, 0.7), shared: null } }))).toEqual([
      400,
    ]);
  });

  it("reads a curve at a size and each worker at today's, 2× and the largest", () => {
    expect(lruAt(body(), 150)).toBe(0.4);
    expect(workerRows(body())).toEqual([{ worker: "w1", turns: 6, today: 0.3, double: 0.5, most: 0.6 }]);
  });

  it.each([
    [
      "a target reached with more KV",
      { target: 0.6, size: size(200, 0.6), below: size(100, 0.4), best: 0.7, more_than_today: size(100, 0.6) },
      /60 % needs 200 blocks \(0.8 GB\) of KV per worker: 0.4 GB \(100 blocks\) more GPU KV per worker than today/,
    ],
    [
      "a target today's capacity reaches",
      { target: 0.4, size: size(100, 0.4), below: size(0, 0), best: 0.7, more_than_today: size(0, 0.4) },
      /today's capacity already reaches it/,
    ],
    [
      "a target out of reach",
      { target: 0.9, size: null, below: null, best: 0.7, more_than_today: null },
      /90 % is out of reach with the recorded routing: each worker.s own cache reaches 70 %/,
    ],
  ])("says %s", (_, perWorker, words) => {
    const shared = { target: perWorker.target, size: null, below: null, best: 0.8, more_than_today: null };
    expect(answerWords(body({ answer: { per_worker: perWorker, shared } }))[0]).toMatch(words);
  });
});
