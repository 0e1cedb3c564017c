import { describe, expect, it } from "vitest";
import { insertEvents } from "../../db/sqlite/ingest";
import { testCaller, testDb } from "../../test/db";
import { minimal, parsed, stats, T0, type Raw } from "../../test/events";

const MIN = 60_000;
const NOW = T0 + 60 * MIN;
const FROM = NOW - 15 * MIN;

describe("overview.trends", () => {
  it("buckets requests/s, TTFT p50, hit rate and KV utilization; buckets without data are left out", async () => {
    const db = testDb();
    const raws: Raw[] = [];
    // Bucket FROM+1min (10 s): five requests with TTFTs 50..250 → median 150, 0.5 req/s.
    [250, 50, 150, 100, 200].forEach((ttft, k) => {
      const at = FROM + MIN + k * 1_000;
      raws.push(
        minimal.request({ id: `q${k}`, request_id: `q${k}`, ts: at, arrived_at: at, first_token_at: at + ttft }),
      );
    });
    // One worker reporting around FROM+3min: counters move by 1000 queried / 750 hit, KV at 25 %.
    raws.push(stats("w1", FROM + 3 * MIN - 5_000, 0, 0, { kv_active_blocks: 250, kv_total_blocks: 1000 }));
    raws.push(stats("w1", FROM + 3 * MIN + 1_000, 1000, 750, { kv_active_blocks: 250, kv_total_blocks: 1000 }));
    insertEvents(db, raws.map(parsed));

    const t = await testCaller(db, () => NOW).overview.trends({ preset: "15m" });
    expect(t.step).toBe(10_000);
    expect(t.points.map((p) => ({ ...p, t: p.t - FROM }))).toEqual([
      { t: MIN, requestsPerSecond: 0.5, ttftP50Ms: 150, itlP95Ms: null, prefixHitRate: null, kvUtilization: null },
      {
        t: 3 * MIN - 10_000,
        requestsPerSecond: 0,
        ttftP50Ms: null,
        itlP95Ms: null,
        prefixHitRate: null,
        kvUtilization: 0.25,
      },
      { t: 3 * MIN, requestsPerSecond: 0, ttftP50Ms: null, itlP95Ms: null, prefixHitRate: 0.75, kvUtilization: 0.25 },
    ]);
  });

  it("shows the ITL p95 of each bucket's requests, from raw rows and from rollups alike", async () => {
    const db = testDb();
    const at = (k: number, base: number) => base + k * 1_000;
    const reqs = (base: number, tag: string) =>
      [10, 20, 30, 40, 200].map((p95, k) =>
        minimal.request({
          id: `${tag}${k}`,
          request_id: `${tag}${k}`,
          ts: at(k, base),
          arrived_at: at(k, base),
          itl_ms_mean: p95 / 2,
          itl_ms_p95: p95,
        }),
      );
    insertEvents(db, [...reqs(FROM + MIN, "a"), ...reqs(NOW - 3 * 3_600_000, "b")].map(parsed));
    const recent = await testCaller(db, () => NOW).overview.trends({ preset: "15m" });
    expect(recent.points.map((p) => p.itlP95Ms)).toEqual([200]);
    const old = await testCaller(db, () => NOW).overview.trends({ preset: "6h" });
    const rolled = old.points.find((p) => p.itlP95Ms !== null)!.itlP95Ms!;
    expect(Math.abs(rolled - 200) / 200).toBeLessThan(0.06);
  });

  it("reads per-minute rollups for ranges over an hour", async () => {
    const db = testDb();
    insertEvents(
      db,
      [stats("w1", NOW - 3 * 3_600_000, 0, 0), stats("w1", NOW - 3 * 3_600_000 + 30_000, 400, 100)].map(parsed),
    );
    const t = await testCaller(db, () => NOW).overview.trends({ preset: "6h" });
    expect(t.step).toBe(5 * MIN);
    expect(t.points).toHaveLength(1);
    expect(t.points[0]!.prefixHitRate).toBe(0.25);
  });
});
