import { describe, expect, it } from "vitest";
import { impactWindows, windowMetrics, type WindowRows } from "@/server/analysis/impact";
import type { Prediction } from "@/server/preview/prediction";
import { changeWords, impactSentence, predictionWords, sidesWords, windowWords } from "./impact-words";

const MIN = 60_000;
const T = 1_764_417_600_000;
const NONE = { cold: 0, diverged: 0, evicted: 0, routedAway: 0, unknown: 0 };
const metrics = (hit: number, ttfts: number[], recomputed: number, evicted: number) =>
  windowMetrics({
    requests: 100,
    inputTokens: 100_000,
    cachedTokens: Math.round(100_000 * hit),
    ttftsSorted: ttfts,
    causes: { ...NONE, evicted: recomputed },
    evictions: [{ reason: "capacity", blocks: evicted }],
  } satisfies WindowRows);
const prediction: Prediction = {
  hit_rate: 0.79,
  ttft_p50_ms: 150,
  ttft_p95_ms: 400,
  window: { from: T - 60 * MIN, to: T },
  computed_at: T,
};

describe("impact words", () => {
  const before = metrics(0.58, [100, 200, 420], 42_000, 3_400);
  const after = metrics(0.81, [90, 160, 380], 19_000, 1_200);

  it("puts the prediction beside the measured change", () => {
    expect(impactSentence(before, after, prediction)).toBe(
      "hit rate 58% → 81%, predicted 79%; TTFT p95 420 ms → 380 ms, predicted 400 ms; TTFT p50 200 ms → 160 ms, predicted 150 ms; recomputed tokens per 1,000 prompt tokens 420.0 → 190.0; evicted blocks per request 34.00 → 12.00",
    );
  });

  it("says what each side holds and which is too thin to judge", () => {
    expect(sidesWords(before, after, { before: null, after: null })).toBe(
      "before: 100 requests, 100,000 prompt tokens; after: 100 requests, 100,000 prompt tokens",
    );
    expect(sidesWords(before, after, { before: "12 requests, fewer than 30", after: null })).toBe(
      "before: 100 requests, 100,000 prompt tokens (too thin to judge: 12 requests, fewer than 30); after: 100 requests, 100,000 prompt tokens",
    );
  });

  it("leaves the prediction out when no preview was run, and writes gaps as a dash", () => {
    expect(impactSentence(before, windowMetrics({ ...emptyRows() }), null)).toMatch(
      /^hit rate 58% → —; TTFT p95 420 ms → —; TTFT p50 200 ms → —;/,
    );
    expect(predictionWords(null)).toBe("No preview was run for this content.");
    expect(predictionWords(prediction, "UTC")).toBe("Predicted by the preview over 2025-11-29 11:00:00 – 12:00:00.");
  });

  it.each<[string, number | null, number | null, number | null, string]>([
    ["with a prediction", 0.58, 0.81, 0.79, "hit rate 58% → 81%, predicted 79%"],
    ["without", 0.58, 0.81, null, "hit rate 58% → 81%"],
    ["no traffic before", null, 0.5, 0.6, "hit rate — → 50%, predicted 60%"],
  ])("change %s", (_name, b, a, p, words) =>
    expect(changeWords("hit rate", b, a, p, (v) => (v === null ? "—" : `${Math.round(v * 100)}%`))).toBe(words),
  );

  it.each([
    [impactWindows(T, T + 12 * MIN, 60 * MIN), "12 of 60 minutes measured (the after-window is filling)"],
    [impactWindows(T, T + 90 * MIN, null), "60 minutes before and 60 after"],
    [
      impactWindows(T, T + 90 * MIN, 30 * MIN, T + 20 * MIN),
      "20 of 30 minutes measured: the next version took effect then",
    ],
    [
      impactWindows(T, T + 90 * MIN, null, T + 40_000),
      "40 s of 60 minutes measured: the next version took effect then",
    ],
    [impactWindows(T, T + 30_000, 5 * MIN), "30 s of 5 minutes measured (the after-window is filling)"],
  ])("window %#", (w, words) => expect(windowWords(w)).toBe(words));
});

function emptyRows(): WindowRows {
  return { requests: 0, inputTokens: 0, cachedTokens: 0, ttftsSorted: [], causes: NONE, evictions: [] };
}
