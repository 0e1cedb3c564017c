import { describe, expect, it, vi } from "vitest";
import { testDb } from "../../test/db";
import { minimal, parsed, type Raw } from "../../test/events";
import { insertEvents } from "../../db/sqlite/ingest";
import { state } from "../../db/sqlite/attribution-index-state";
import { attributionStep } from "./attribution";

// The job flushes once the cached interval lists pass their bound (db/sqlite/attribution-list-cache.test.ts has the
// cache's side). A small bound here stands for the real one (lib/memory-bounds.ts).
vi.mock("../../lib/memory-bounds", async (original) => ({
  ...(await original<typeof import("../../lib/memory-bounds")>()),
  ATTR_LIST_CACHE_INTERVALS: 2_000,
}));

const T = 1_764_417_600_000;

describe("the attribution job under a KV backlog that churns blocks", () => {
  it("flushes once the lists' intervals pass the bound, before its dirty blocks would ask for it", () => {
    const db = testDb();
    // 40 blocks offloaded and onboarded 10 times each, one event per block and edit: 800 KV events, no requests, so
    // the job's first step applies 100 of them and nothing else would make it flush.
    const events: Raw[] = [];
    let n = 0;
    for (let c = 0; c < 10; c++)
      for (let k = 0; k < 40; k++) {
        const hashes = [String(1_000_000 + k)];
        const t = T + c * 1_000 + k;
        events.push(minimal["kv.stored"]({ id: `kvs-${++n}`, ts: t, worker_id: "w1", block_hashes: hashes }));
        events.push(
          minimal["kv.removed"]({
            id: `kvr-${++n}`,
            ts: t + 500,
            worker_id: "w1",
            block_hashes: hashes,
            reason: "capacity",
          }),
        );
      }
    insertEvents(db, events.map(parsed));
    const cursor = () => db.$client.prepare("SELECT value FROM attr_state WHERE key = 'kv'").pluck().get();
    const first = attributionStep(db);
    expect(first.kvEvents).toBe(100);
    expect(first.caughtUp).toBe(false);
    // 100 events: 40 blocks' lists of 1 to 2 intervals, each step of a list a new one, are far from 2,000 intervals.
    expect(cursor()).toBeUndefined();
    // Keep going until the cache is full: the step that fills it writes the index and the cursor.
    let steps = 1;
    while (cursor() === undefined && steps < 8) {
      attributionStep(db);
      steps++;
    }
    // Well before the backlog is applied (8 steps): 40 blocks × 2 × (1 + … + 10) intervals in all, 4,400.
    expect(steps).toBeLessThan(8);
    expect(cursor()).toBeDefined();
    expect(state(db).listIntervals).toBeLessThanOrEqual(1_500);
  });
});
