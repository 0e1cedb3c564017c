import { describe, expect, it } from "vitest";
import { insertEvents } from "../../db/sqlite/ingest";
import { sqliteStore } from "../../db/store/store";
import { testDb } from "../../test/db";
import { minimal, parsed, T0 } from "../../test/events";
import { requestStats, requestTrend } from "./requests";

const HOUR = 3_600_000;

/** 600 requests over six hours, one every 36 s: TTFT is 100 + i ms, so quantiles are known exactly. */
function seed() {
  const db = testDb();
  insertEvents(
    db,
    Array.from({ length: 600 }, (_, i) =>
      parsed(
        minimal.request({
          id: `rq-${i}`,
          request_id: `r${i}`,
          arrived_at: T0 + i * 36_000,
          first_token_at: T0 + i * 36_000 + 100 + i,
          input_tokens: 1000,
          cached_tokens: 200,
          output_tokens: 10,
        }),
      ),
    ),
  );
  return sqliteStore(db);
}

describe("requestStats", () => {
  it("gives TTFT percentiles within 5% of the exact ones over a long range (rollups)", async () => {
    // TTFTs are 100 … 699 ms: exact p50 = 399, p95 = 669 (nearest rank).
    const s = await requestStats(seed(), T0, T0 + 6 * HOUR);
    expect(s.requests).toBe(600);
    expect(Math.abs(s.ttftP50Ms! - 399) / 399).toBeLessThan(0.05);
    expect(Math.abs(s.ttftP95Ms! - 669) / 669).toBeLessThan(0.05);
  });

  it("is exact from raw rows up to an hour", async () => {
    expect(await requestStats(seed(), T0, T0 + HOUR)).toEqual({ requests: 100, ttftP50Ms: 149, ttftP95Ms: 194 });
  });

  it("has null percentiles and no requests on an empty range, raw or rolled", async () => {
    const db = seed();
    const empty = { requests: 0, ttftP50Ms: null, ttftP95Ms: null };
    expect(await requestStats(db, T0 - HOUR, T0)).toEqual(empty);
    expect(await requestStats(db, T0 - 7 * HOUR, T0)).toEqual(empty);
  });
});

describe("requestTrend", () => {
  it("gives the raw median per bucket up to an hour and the histogram's within 5% beyond", async () => {
    const db = seed();
    // 10-minute buckets of the first hour hold requests i = 0…16, 17…33, …: 17 or 16 each, median TTFT 100 + middle i.
    const raw = await requestTrend(db, T0, T0 + HOUR, 600_000);
    expect(raw.map((b) => b.requests)).toEqual([17, 17, 16, 17, 17, 16]);
    expect(raw[0]).toEqual({ t: T0, requests: 17, ttftP50: 108 });
    const rolled = await requestTrend(db, T0, T0 + 6 * HOUR, HOUR);
    expect(rolled.map((b) => b.requests)).toEqual([100, 100, 100, 100, 100, 100]);
    rolled.forEach((b, h) => {
      const exact = 100 + h * 100 + 49;
      expect(Math.abs(b.ttftP50! - exact) / exact).toBeLessThan(0.05);
    });
  });

  it("has no buckets for a range without requests", async () => {
    expect(await requestTrend(seed(), T0 - 7 * HOUR, T0, HOUR)).toEqual([]);
  });
});
