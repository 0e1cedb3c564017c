import { describe, expect, it } from "vitest";
import { bucketSeconds, trendPoints, type RequestBucket, type WorkerBucket } from "./trends";

const S = 10_000;

describe("bucketSeconds", () => {
  it.each<[string, number, number, number, number]>([
    ["a whole bucket", 20_000, 0, 100_000, 10],
    ["the first bucket starts before the range", 0, 4_000, 100_000, 6],
    ["the last bucket ends after the range", 90_000, 0, 93_000, 3],
    ["outside the range", 200_000, 0, 100_000, 0],
  ])("%s", (_name, t, from, to, secs) => {
    expect(bucketSeconds(t, S, from, to)).toBe(secs);
  });
});

const w = (t: number, o: Partial<WorkerBucket> = {}): WorkerBucket => ({
  t,
  samples: 10,
  kvActive: 0,
  kvTotal: 0,
  query: 0,
  hit: 0,
  ...o,
});
const r = (t: number, requests: number, ttftP50: number | null = 100): RequestBucket => ({ t, requests, ttftP50 });

describe("trendPoints", () => {
  it.each<[string, RequestBucket[], WorkerBucket[], ReturnType<typeof trendPoints>]>([
    ["nothing is nothing (every bucket a gap)", [], [], []],
    [
      "requests over the bucket's seconds; no workers → hit rate and KV are gaps",
      [r(10_000, 20, 150)],
      [],
      [{ t: 10_000, requestsPerSecond: 2, ttftP50Ms: 150, itlP95Ms: null, prefixHitRate: null, kvUtilization: null }],
    ],
    [
      "a reporting cluster with no requests is idle (0 req/s), not a gap",
      [],
      [w(0, { kvActive: 50, kvTotal: 100 })],
      [{ t: 0, requestsPerSecond: 0, ttftP50Ms: null, itlP95Ms: null, prefixHitRate: null, kvUtilization: 0.5 }],
    ],
    [
      "hit rate and KV utilization are weighted across workers, not averaged",
      [],
      [
        w(0, { kvActive: 100, kvTotal: 100, query: 9000, hit: 9000 }),
        w(0, { kvActive: 0, kvTotal: 900, query: 1000, hit: 0 }),
      ],
      [{ t: 0, requestsPerSecond: 0, ttftP50Ms: null, itlP95Ms: null, prefixHitRate: 0.9, kvUtilization: 0.1 }],
    ],
    [
      "the partial first bucket divides by the seconds inside the range",
      [r(0, 6)],
      [],
      [{ t: 0, requestsPerSecond: 1, ttftP50Ms: 100, itlP95Ms: null, prefixHitRate: null, kvUtilization: null }],
    ],
  ])("%s", (_name, requests, workers, expected) => {
    expect(trendPoints({ requests, workers, step: S, from: 4_000, to: 100_000 })).toEqual(expected);
  });

  it("orders points by time and skips empty buckets", () => {
    const pts = trendPoints({
      requests: [r(30_000, 10), r(10_000, 10)],
      workers: [w(50_000)],
      step: S,
      from: 0,
      to: 100_000,
    });
    expect(pts.map((p) => p.t)).toEqual([10_000, 30_000, 50_000]);
  });
});
