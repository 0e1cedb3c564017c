import { describe, expect, it } from "vitest";
import { testDb, testCaller } from "../../test/db";
import { minimal, parsed, stats, T0 } from "../../test/events";
import { insertEvents } from "./ingest";
import { rolledRequestCount } from "../store/overview";
import { rawDecisionBuckets, rawTokenBuckets, rolledDecisionBuckets, rolledTokenBuckets } from "../store/routing";
import { sqliteStore } from "../store/store";

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
    parsed(
      minimal["route.decision"]({
        id: `rd-${i}`,
        request_id: `r${i}`,
        ts: T0 + i * 72_000,
        chosen_worker_id: i % 3 ? "w1" : "w2",
      }),
    ),
  );
  insertEvents(db, [...requests, ...decisions]);
  return db;
}

describe("request and routing rollups", () => {
  it("count each accepted request and decision once, also when a batch is re-sent", async () => {
    const db = seed();
    const again = [
      parsed(
        minimal.request({
          id: "rq-0",
          request_id: "r0",
          arrived_at: T0,
          first_token_at: T0 + 100,
          input_tokens: 1000,
          cached_tokens: 200,
          output_tokens: 10,
        }),
      ),
    ];
    expect(insertEvents(db, again)).toEqual(["duplicate"]);
    const s = sqliteStore(db);
    expect(await rolledRequestCount(s, T0, T0 + 6 * HOUR)).toBe(600);
    const histogramTotal = db.$client.prepare("SELECT sum(n) FROM request_ttft_1m").pluck().get();
    expect(histogramTotal).toBe(600);
    const d = await rolledDecisionBuckets(s, "1m", T0, T0 + 6 * HOUR, HOUR);
    expect(d.reduce((a, b) => a + b.decisions, 0)).toBe(300);
    // w1 (overlap 4) won 200 decisions while w2 held 9 blocks: 5 lost blocks each; w2's 100 wins lost none.
    const lost = (w: string) => d.filter((b) => b.workerId === w).reduce((a, b) => a + b.lostBlocks, 0);
    expect(lost("w1")).toBe(1000);
    expect(lost("w2")).toBe(0);
  });

  it("give the same token and decision buckets as raw rows over a long range", async () => {
    const db = seed();
    const s = sqliteStore(db);
    const raw = db.$client
      .prepare(
        "SELECT arrived_at - arrived_at % 1800000 AS t, count(*) AS requests, sum(input_tokens) AS input, sum(cached_tokens) AS cached FROM requests GROUP BY t ORDER BY t",
      )
      .all();
    expect(await rawTokenBuckets(s, T0, T0 + 6 * HOUR, 1_800_000)).toEqual(raw);
    expect(await rolledTokenBuckets(s, T0, T0 + 6 * HOUR, 1_800_000)).toEqual(raw);
    const rawDecisions = db.$client
      .prepare(
        `SELECT ts - ts % 1800000 AS t, chosen_worker_id AS workerId, count(*) AS decisions, sum(best_overlap_blocks - chosen_overlap_blocks) AS lostBlocks,
           sum(prompt_blocks) AS promptBlocks FROM route_decisions GROUP BY t, workerId ORDER BY t, workerId`,
      )
      .all();
    expect(await rawDecisionBuckets(s, T0, T0 + 6 * HOUR, 1_800_000)).toEqual(rawDecisions);
    expect(await rolledDecisionBuckets(s, "1m", T0, T0 + 6 * HOUR, 1_800_000)).toEqual(rawDecisions);
    expect(await rolledDecisionBuckets(s, "15m", T0, T0 + 6 * HOUR, 1_800_000)).toEqual(rawDecisions);
  });

  it("feed the overview over 24 h without reading raw requests", async () => {
    const db = seed();
    db.$client.exec("DELETE FROM requests");
    const s = await testCaller(db, () => T0 + 24 * HOUR).overview.summary({ preset: "24h" });
    expect(s.requests).toBe(600);
    expect(s.ttftP50Ms).not.toBeNull();
  });
});

describe("15-minute rollups", () => {
  it("equal the 1-minute rows summed per quarter-hour, across batches", () => {
    const db = testDb();
    const samples = Array.from({ length: (3 * 3600) / 10 }, (_, i) =>
      parsed(
        stats(i % 3 ? "w1" : "w2", T0 + i * 10_000, 1000 * (i + 1), 600 * (i + 1), {
          id: `s-${i}`,
          kv_active_blocks: i % 500,
        }),
      ),
    );
    for (let i = 0; i < samples.length; i += 97) insertEvents(db, samples.slice(i, i + 97));
    const decisions = Array.from({ length: 200 }, (_, i) =>
      parsed(minimal["route.decision"]({ id: `rd-${i}`, ts: T0 + i * 50_000, chosen_worker_id: i % 2 ? "w1" : "w2" })),
    );
    for (let i = 0; i < decisions.length; i += 33) insertEvents(db, decisions.slice(i, i + 33));
    const q = (sql: string) => db.$client.prepare(sql).all();
    expect(q("SELECT * FROM worker_stats_15m ORDER BY worker_id, minute")).toEqual(
      q(`SELECT worker_id, minute - minute % 900000 AS minute, sum(samples) AS samples, sum(kv_active_sum) AS kv_active_sum, max(kv_active_max) AS kv_active_max,
           sum(kv_total_sum) AS kv_total_sum, sum(running_sum) AS running_sum, max(running_max) AS running_max, sum(waiting_sum) AS waiting_sum,
           max(waiting_max) AS waiting_max, sum(prefix_query_delta) AS prefix_query_delta, sum(prefix_hit_delta) AS prefix_hit_delta,
           sum(counter_resets) AS counter_resets, max(utilization_max) AS utilization_max, min(preemptions_min) AS preemptions_min,
           max(preemptions_max) AS preemptions_max, sum(batch_tokens_sum) AS batch_tokens_sum, sum(batch_samples) AS batch_samples
         FROM worker_stats_1m GROUP BY 1, 2 ORDER BY 1, 2`),
    );
    expect(q("SELECT * FROM route_decisions_15m ORDER BY minute, chosen_worker_id")).toEqual(
      q(`SELECT minute - minute % 900000 AS minute, chosen_worker_id, sum(decisions) AS decisions, sum(prompt_blocks) AS prompt_blocks, sum(lost_blocks) AS lost_blocks
         FROM route_decisions_1m GROUP BY 1, 2 ORDER BY 1, 2`),
    );
    expect(db.$client.prepare("SELECT count(*) FROM worker_stats_15m").pluck().get()).toBe(2 * 12);
  });
});
