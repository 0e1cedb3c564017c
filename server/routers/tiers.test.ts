import { describe, expect, it } from "vitest";
import { testCaller, testDb } from "../../test/db";
import { ingestBody } from "../ingest/ingest";

const T0 = 1_764_417_600_000;
const MIN = 60_000;
const NOW = T0 + 15 * MIN;
const range = { from: T0, to: NOW };

function post(db: ReturnType<typeof testDb>, events: Record<string, unknown>[]) {
  const reply = ingestBody(db, JSON.stringify(events), "application/json");
  expect(reply.rejected).toBe(0);
}

const req = (id: string, at: number, o: Record<string, unknown>) => ({
  id,
  kind: "request",
  ts: at,
  request_id: id,
  worker_id: "w1",
  api: "messages",
  model: "m",
  arrived_at: at,
  input_tokens: 1000,
  output_tokens: 10,
  status: "ok",
  ...o,
});

describe("tiers router", () => {
  it("a cluster with device-only cached tokens has no split; one with a lower tier does", async () => {
    const db = testDb();
    const caller = testCaller(db, () => NOW);
    post(db, [req("a", T0 + MIN, { cached_tokens: 800 })]);
    expect((await caller.tiers.cluster({ range })).split).toBeNull();
    post(db, [
      req("b", T0 + 2 * MIN, {
        cached_tokens: 600,
        cached_tokens_by_tier: { device: 200, host: 400 },
        prefetched_tokens: 300,
      }),
    ]);
    expect((await caller.tiers.cluster({ range })).split).toEqual({
      device: 1000,
      host: 400,
      disk: 0,
      shared: 0,
      prefetched: 300,
    });
  });

  it("a worker's view: blocks per tier over time, offloads and onboards, and hit rate per tier from posted events", async () => {
    const db = testDb();
    const caller = testCaller(db, () => NOW);
    post(db, [
      {
        id: "s1",
        kind: "kv.stored",
        ts: T0 + 1_000,
        worker_id: "w1",
        block_hashes: ["1", "2", "3"],
        parent_hash: null,
      },
      {
        id: "r1",
        kind: "kv.removed",
        ts: T0 + 2 * MIN,
        worker_id: "w1",
        block_hashes: ["2", "3"],
        reason: "offloaded",
      },
      {
        id: "s2",
        kind: "kv.stored",
        ts: T0 + 2 * MIN,
        worker_id: "w1",
        block_hashes: ["2", "3"],
        parent_hash: "1",
        storage_tier: "host",
      },
      {
        id: "s3",
        kind: "kv.stored",
        ts: T0 + 5 * MIN,
        worker_id: "w1",
        block_hashes: ["2"],
        parent_hash: "1",
        onboarded_from: "host",
      },
      req("c", T0 + 5 * MIN, { cached_tokens: 900, cached_tokens_by_tier: { device: 600, host: 300 } }),
    ]);
    const v = await caller.tiers.worker({ id: "w1", range });
    expect(v.step).toBe(MIN);
    expect(v.tiers).toEqual(["device", "host"]);
    expect(v.points.map((p) => [p.blocks.device, p.blocks.host]).slice(0, 6)).toEqual([
      [3, null],
      [3, null],
      [1, 2],
      [1, 2],
      [1, 2],
      [2, 2],
    ]);
    expect(v.totals).toMatchObject({
      offloaded: 2,
      onboarded: 1,
      cached: { device: 600, host: 300, disk: 0, shared: 0 },
    });
    expect(v.points[5]!.hit).toEqual({ device: 0.6, host: 0.3, disk: 0, shared: 0 });
    expect((await caller.tiers.worker({ id: "w2", range })).tiers).toEqual([]);
  });
});
