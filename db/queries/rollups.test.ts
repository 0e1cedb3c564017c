import { describe, expect, it } from "vitest";
import { testDb, testCaller } from "../../test/db";
import { minimal, parsed, T0 } from "../../test/events";
import { storeEvents } from "./ingest";
import { requestStats } from "./overview";
import { decisionBuckets, tokenBuckets } from "./routing";
import { rolledDecisionBuckets, rolledRequestCount, rolledTokenBuckets, useRollups } from "./rollups";

const HOUR = 3_600_000;

/** Requests spread over six hours: TTFT grows with i so quantiles are known exactly. */
function seed() {
  const db = testDb();
  const requests = Array.from({ length: 600 }, (_, i) =>
    parsed(
      minimal.request({
        id: `rq-${i}`,
        request_id: `r${i}`,
        arrived_at: T0 + i * 36_000,
        first_token_at: T0 + i * 36_000 + 100 + i,
        input_tokens: 1000,
        cached_tokens: i % 2 ? 800 : 200,
        output_tokens: 10,
      }),
    ),
  );
  const decisions = Array.from({ length: 300 }, (_, i) =>
    parsed(minimal["route.decision"]({ id: `rd-${i}`, request_id: `r${i}`, ts: T0 + i * 72_000, chosen_worker_id: i % 3 ? "w1" : "w2" })),
  );
  storeEvents(db, [...requests, ...decisions]);
  return db;
}

describe("request and routing rollups", () => {
  it("count each accepted request and decision once, also when a batch is re-sent", () => {
    const db = seed();
    const again = [parsed(minimal.request({ id: "rq-0", request_id: "r0", arrived_at: T0, first_token_at: T0 + 100, input_tokens: 1000, cached_tokens: 200, output_tokens: 10 }))];
    expect(storeEvents(db, again)).toEqual(["duplicate"]);
    expect(rolledRequestCount(db, T0, T0 + 6 * HOUR)).toBe(600);
    const histogramTotal = db.$client.prepare("SELECT sum(n) FROM request_ttft_1m").pluck().get();
    expect(histogramTotal).toBe(600);
    const d = rolledDecisionBuckets(db, T0, T0 + 6 * HOUR, HOUR);
    expect(d.reduce((a, b) => a + b.decisions, 0)).toBe(300);
    // w1 (overlap 4) won 200 decisions while w2 held 9 blocks: 5 lost blocks each; w2's 100 wins lost none.
    const lost = (w: string) => d.filter((b) => b.workerId === w).reduce((a, b) => a + b.lostBlocks, 0);
    expect(lost("w1")).toBe(1000);
    expect(lost("w2")).toBe(0);
  });

  it.each([
    ["30 min", 30 * 60_000, 60_000, false],
    ["6 h, 5-minute buckets", 6 * HOUR, 300_000, true],
    ["6 h, 30-second buckets", 6 * HOUR, 30_000, false],
  ])("rollups for %s: %s", (_, _span, _step, expected) => expect(useRollups(T0, T0 + _span, _step)).toBe(expected));

  it("give the same token and decision buckets as raw rows over a long range", () => {
    const db = seed();
    const raw = db.$client
      .prepare("SELECT arrived_at - arrived_at % 1800000 AS t, count(*) AS requests, sum(input_tokens) AS input, sum(cached_tokens) AS cached FROM requests GROUP BY t ORDER BY t")
      .all();
    expect(tokenBuckets(db, T0, T0 + 6 * HOUR, 1_800_000)).toEqual(raw);
    expect(rolledTokenBuckets(db, T0, T0 + 6 * HOUR, 1_800_000)).toEqual(raw);
    const rawDecisions = db.$client
      .prepare(
        `SELECT ts - ts % 1800000 AS t, chosen_worker_id AS workerId, count(*) AS decisions, sum(best_overlap_blocks - chosen_overlap_blocks) AS lostBlocks,
           sum(prompt_blocks) AS promptBlocks FROM route_decisions GROUP BY t, workerId ORDER BY t`,
      )
      .all();
    expect(decisionBuckets(db, T0, T0 + 6 * HOUR, 1_800_000)).toEqual(rawDecisions);
  });

  it("give TTFT percentiles within 5% of the exact ones over a long range", () => {
    const db = seed();
    // TTFTs are 100 … 699 ms: exact p50 = 399, p95 = 669 (nearest rank).
    const s = requestStats(db, T0, T0 + 6 * HOUR);
    expect(s.requests).toBe(600);
    expect(Math.abs(s.ttftP50Ms! - 399) / 399).toBeLessThan(0.05);
    expect(Math.abs(s.ttftP95Ms! - 669) / 669).toBeLessThan(0.05);
    const exact = requestStats(db, T0, T0 + HOUR);
    expect(exact.requests).toBe(100);
    expect(exact.ttftP50Ms).toBe(149);
  });

  it("feed the overview over 24 h without reading raw requests", async () => {
    const db = seed();
    db.$client.exec("DELETE FROM requests");
    const s = await testCaller(db, () => T0 + 24 * HOUR).overview.summary({ preset: "24h" });
    expect(s.requests).toBe(600);
    expect(s.ttftP50Ms).not.toBeNull();
  });
});
