import { describe, expect, it } from "vitest";
import type { PreviewResult, RunSummary } from "@/server/preview/types";
import { causeRows, countRows, headlineRows, plannerRows, previewWindow, summarySentence, workerRows } from "./prepare";

const run = (over: Partial<RunSummary>): RunSummary => ({
  hit_rate: 0.5,
  prompt_tokens: 1000,
  cached_tokens: 500,
  recomputed_by_cause: { cold: 100, diverged: 0, evicted: 300, routed_away: 100 },
  ttft_p50_ms: 200,
  ttft_p95_ms: 900,
  evictions_by_reason: { capacity: 10 },
  evictions_by_class: { conversation: 10 },
  workers: [{ worker_id: "w1", kv_mean: 0.5, kv_max: 0.9, preemptions: 0 }],
  planner: { decisions: [], gpu_hours: 2 },
  requests: 10,
  ...over,
});

const result = (b: Partial<RunSummary>, c: Partial<RunSummary>): PreviewResult => ({
  kind: "retention",
  content_hash: "x",
  window: { from: 0, to: 1 },
  baseline: run(b),
  candidate: run(c),
  measured: { hit_rate: 0.52, ttft_p50_ms: 210, ttft_p95_ms: null, requests: 10 },
  error: { hit_rate_points: -2, ttft_p50_ms: -10, ttft_p95_ms: null },
  sessions: [],
  assumptions: [],
  cluster: { workers: { aggregated: 1 }, kv_blocks: { aggregated: 100 }, block_size: 64, source: "observed" },
  elapsed_ms: 1,
});

describe("preview rows", () => {
  it.each([
    ["1h", 1_764_400_059_999, { from: 1_764_396_420_000, to: 1_764_400_020_000 }],
    ["15m", 1_764_400_020_000, { from: 1_764_399_120_000, to: 1_764_400_020_000 }],
  ] as const)("window %s at %d ends on the minute", (span, now, want) => {
    expect(previewWindow(span, now)).toEqual(want);
  });

  it("writes the headline change in points and percent, with the measured value and the baseline's error", () => {
    const rows = headlineRows(result({}, { hit_rate: 0.81, ttft_p95_ms: 450 }));
    expect(rows[0]).toEqual({
      metric: "Hit rate (token-weighted)",
      baseline: "50.0%",
      candidate: "81.0%",
      change: "+31.0 points",
      measured: "52.0%",
      error: "−2 points",
    });
    expect(rows[2]!.change).toBe("−50%");
    expect(rows[2]!.measured).toBe("—");
    expect(rows[2]!.error).toBe("—");
    expect(summarySentence(result({ hit_rate: null }, {}))).toBe("Hit rate — → 50.0% (—), TTFT p95 900 ms → 900 ms.");
  });

  it("merges keyed counts of both runs, largest first, with no data as 0 only where the other run has the key", () => {
    expect(countRows({ capacity: 5 }, { capacity: 2, ttl: 9 })).toEqual([
      { metric: "ttl", baseline: "0", candidate: "9", change: "+9" },
      { metric: "capacity", baseline: "5", candidate: "2", change: "−3" },
    ]);
    expect(countRows({}, {})).toEqual([]);
  });

  it("lists causes, workers either run had, and planner figures", () => {
    const b = run({});
    const c = run({
      workers: [{ worker_id: "w2", kv_mean: 0.1, kv_max: 0.2, preemptions: 0 }],
      planner: {
        decisions: [{ ts: 1, role: "aggregated", action: "scale_up", replicas_after: 2, reason: "" }],
        gpu_hours: 3,
      },
    });
    expect(causeRows(b, c).map((r) => r.change)).toEqual(["same", "same", "same", "same"]);
    expect(workerRows(b, c)).toEqual([
      { metric: "w1", baseline: "50% mean · 90% peak", candidate: "—", change: "" },
      { metric: "w2", baseline: "—", candidate: "10% mean · 20% peak", change: "" },
    ]);
    expect(plannerRows(b, c)).toEqual([
      { metric: "GPU-hours", baseline: "2", candidate: "3", change: "+50%" },
      { metric: "Scale-ups", baseline: "0", candidate: "1", change: "+1" },
      { metric: "Scale-downs", baseline: "0", candidate: "0", change: "same" },
    ]);
  });
});
