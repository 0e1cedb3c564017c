import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "./client";
import { testDb } from "../../test/db";
import { minimal, parsed, stats, T0, type Raw } from "../../test/events";
import { insertEvents } from "./ingest";

type RollupRow = {
  worker_id: string;
  minute: number;
  samples: number;
  kv_active_sum: number;
  kv_active_max: number;
  kv_total_sum: number;
  running_sum: number;
  running_max: number;
  waiting_sum: number;
  waiting_max: number;
  prefix_query_delta: number;
  prefix_hit_delta: number;
  counter_resets: number;
  utilization_max: number;
};

type WorkerRow = {
  worker_id: string;
  role: string | null;
  model: string | null;
  block_size: number | null;
  kv_total_blocks: number | null;
  first_seen: number;
  last_seen: number;
  up_at: number | null;
  down_at: number | null;
  down_reason: string | null;
};

const M0 = T0;
const M1 = T0 + 60_000;

let db: Db;
beforeEach(() => {
  db = testDb();
});

const store = (raws: Raw[]) => insertEvents(db, raws.map(parsed));

function rollups(worker = "w1"): RollupRow[] {
  return db.$client
    .prepare("SELECT * FROM worker_stats_1m WHERE worker_id = ? ORDER BY minute")
    .all(worker) as RollupRow[];
}

function rollup(minute: number, worker = "w1"): RollupRow | undefined {
  return rollups(worker).find((r) => r.minute === minute);
}

function worker(id = "w1"): WorkerRow | undefined {
  return db.$client.prepare("SELECT * FROM workers WHERE worker_id = ?").get(id) as WorkerRow | undefined;
}

/** Store samples either in one batch or one batch each: rollups must not depend on batching. */
const batchings: [string, (raws: Raw[]) => void][] = [
  ["one batch", (raws) => store(raws)],
  ["one batch per sample", (raws) => raws.forEach((r) => store([r]))],
];

describe.each(batchings)("rollups, %s", (_name, ingest) => {
  it("sums and maxes the gauges per worker and minute", () => {
    ingest([
      stats("w1", M0 + 1_000, 0, 0, {
        kv_active_blocks: 100,
        kv_total_blocks: 1000,
        requests_running: 2,
        requests_waiting: 0,
      }),
      stats("w1", M0 + 20_000, 0, 0, {
        kv_active_blocks: 500,
        kv_total_blocks: 1000,
        requests_running: 7,
        requests_waiting: 4,
      }),
      stats("w1", M0 + 59_999, 0, 0, {
        kv_active_blocks: 300,
        kv_total_blocks: 2000,
        requests_running: 1,
        requests_waiting: 1,
      }),
      stats("w1", M1, 0, 0, { kv_active_blocks: 10, kv_total_blocks: 1000, requests_running: 9, requests_waiting: 0 }),
      stats("w2", M0 + 5_000, 0, 0, {
        kv_active_blocks: 900,
        kv_total_blocks: 1000,
        requests_running: 3,
        requests_waiting: 8,
      }),
    ]);
    expect(rollup(M0)).toMatchObject({
      samples: 3,
      kv_active_sum: 900,
      kv_active_max: 500,
      kv_total_sum: 4000,
      running_sum: 10,
      running_max: 7,
      waiting_sum: 5,
      waiting_max: 4,
      utilization_max: 0.5,
    });
    expect(rollup(M1)).toMatchObject({ samples: 1, kv_active_sum: 10, running_max: 9, utilization_max: 0.01 });
    expect(rollups("w2")).toMatchObject([
      { minute: M0, samples: 1, kv_active_sum: 900, waiting_max: 8, utilization_max: 0.9 },
    ]);
  });

  it("adds counter deltas between consecutive samples, in the minute of the later one", () => {
    ingest([
      stats("w1", M0 + 1_000, 100, 50),
      stats("w1", M0 + 20_000, 300, 120),
      stats("w1", M0 + 40_000, 330, 125),
      stats("w1", M1 + 1_000, 400, 190),
    ]);
    expect(rollup(M0)).toMatchObject({ samples: 3, prefix_query_delta: 230, prefix_hit_delta: 75, counter_resets: 0 });
    expect(rollup(M1)).toMatchObject({ samples: 1, prefix_query_delta: 70, prefix_hit_delta: 65, counter_resets: 0 });
  });

  it("keeps counters per worker", () => {
    ingest([
      stats("w1", M0 + 1_000, 100, 10),
      stats("w2", M0 + 2_000, 5_000, 4_000),
      stats("w1", M0 + 3_000, 150, 20),
      stats("w2", M0 + 4_000, 5_100, 4_090),
    ]);
    expect(rollup(M0, "w1")).toMatchObject({ prefix_query_delta: 50, prefix_hit_delta: 10 });
    expect(rollup(M0, "w2")).toMatchObject({ prefix_query_delta: 100, prefix_hit_delta: 90 });
  });

  it("treats a counter drop as a restart: the delta is the new value and counter_resets counts it", () => {
    ingest([
      stats("w1", M0 + 1_000, 1_000, 800),
      stats("w1", M0 + 2_000, 1_100, 850),
      stats("w1", M0 + 3_000, 40, 10),
      stats("w1", M0 + 4_000, 90, 30),
    ]);
    expect(rollup(M0)).toMatchObject({
      samples: 4,
      prefix_query_delta: 100 + 40 + 50,
      prefix_hit_delta: 50 + 10 + 20,
      counter_resets: 1,
    });
  });

  it("gives the first sample of a worker no delta", () => {
    ingest([stats("w1", M0 + 1_000, 918_272, 801_002)]);
    expect(rollup(M0)).toMatchObject({ samples: 1, prefix_query_delta: 0, prefix_hit_delta: 0, counter_resets: 0 });
  });

  it("never lets the hit delta exceed the query delta", () => {
    ingest([stats("w1", M0 + 1_000, 100, 0), stats("w1", M0 + 2_000, 110, 50), stats("w1", M1 + 1_000, 120, 55)]);
    expect(rollup(M0)).toMatchObject({ prefix_query_delta: 10, prefix_hit_delta: 10 });
    expect(rollup(M1)).toMatchObject({ prefix_query_delta: 10, prefix_hit_delta: 5 });
    for (const r of rollups()) expect(r.prefix_hit_delta).toBeLessThanOrEqual(r.prefix_query_delta);
  });

  it("accepts counters sent as numbers and as strings alike", () => {
    ingest([stats("w1", M0 + 1_000, 100, "50"), stats("w1", M0 + 2_000, "9007199254741991", 1_000)]);
    expect(rollup(M0)).toMatchObject({ prefix_query_delta: 9_007_199_254_741_891, prefix_hit_delta: 950 });
  });
});

describe("rollups with out-of-order samples", () => {
  it("an older sample in a later batch adds its gauges but no counter delta and no reset", () => {
    store([
      stats("w1", M0 + 30_000, 100, 50, { requests_running: 1 }),
      stats("w1", M0 + 50_000, 300, 120, { requests_running: 2 }),
    ]);
    store([stats("w1", M0 + 10_000, 20, 5, { requests_running: 4 })]);
    expect(rollup(M0)).toMatchObject({
      samples: 3,
      running_sum: 7,
      running_max: 4,
      prefix_query_delta: 200,
      prefix_hit_delta: 70,
      counter_resets: 0,
    });
    store([stats("w1", M1 + 10_000, 400, 170)]);
    expect(rollup(M1)).toMatchObject({ samples: 1, prefix_query_delta: 100, prefix_hit_delta: 50, counter_resets: 0 });
  });

  it("an older sample within one batch adds no delta either", () => {
    store([stats("w1", M0 + 50_000, 300, 120), stats("w1", M0 + 30_000, 100, 50), stats("w1", M1 + 10_000, 400, 170)]);
    expect(rollup(M0)).toMatchObject({ samples: 2, prefix_query_delta: 0, counter_resets: 0 });
    expect(rollup(M1)).toMatchObject({ samples: 1, prefix_query_delta: 100, prefix_hit_delta: 50 });
  });

  it("keeps the newest sample as the counter baseline", () => {
    store([stats("w1", M0 + 50_000, 300, 120)]);
    store([stats("w1", M0 + 10_000, 20, 5)]);
    expect(db.$client.prepare("SELECT * FROM worker_counters").all()).toEqual([
      { worker_id: "w1", ts: M0 + 50_000, prefix_query_tokens: "300", prefix_hit_tokens: "120" },
    ]);
  });
});

describe("insertEvents result", () => {
  it("returns accepted or duplicate per event in order", () => {
    expect(store([minimal["kv.cleared"]({ id: "a" }), minimal["kv.cleared"]({ id: "b" })])).toEqual([
      "accepted",
      "accepted",
    ]);
    expect(
      store([
        minimal["kv.cleared"]({ id: "c" }),
        minimal["kv.cleared"]({ id: "a" }),
        minimal["kv.cleared"]({ id: "c" }),
      ]),
    ).toEqual(["accepted", "duplicate", "duplicate"]);
  });

  it("stores nothing when the transaction fails", () => {
    const good = parsed(minimal["kv.cleared"]({ id: "a" }));
    const broken = { ...parsed(minimal.request({ id: "b" })), api: null } as unknown as typeof good;
    expect(() => insertEvents(db, [good, broken])).toThrow();
    expect(db.$client.prepare("SELECT count(*) FROM kv_events").pluck().get()).toBe(0);
  });

  it("refuses a batch naming a prefix_of without a resolver, storing nothing (the decision is not db's)", () => {
    const first = parsed(minimal["kv.cleared"]({ id: "a" }));
    const compact = parsed(minimal.request({ id: "b", request_id: "r2", prefix_of: { request_id: "r1", blocks: 1 } }));
    expect(() => insertEvents(db, [first, compact])).toThrow(/no resolvePrefix/);
    expect(db.$client.prepare("SELECT count(*) FROM kv_events").pluck().get()).toBe(0);
  });

  it("asks the resolver about each prefix_of and refuses the request alone when it says no", () => {
    const asked: [string, string | undefined, boolean][] = [];
    const out = insertEvents(
      db,
      [
        parsed(minimal["kv.cleared"]({ id: "a" })),
        parsed(minimal.request({ id: "b", request_id: "r2", prefix_of: { request_id: "r9", blocks: 1 } })),
      ],
      {
        resolvePrefix: (e, named, later) => {
          asked.push([e.request_id, named?.rowId, later]);
          return { ok: false, code: "unknown_prefix", error: "not held" };
        },
      },
    );
    expect(asked).toEqual([["r2", undefined, false]]);
    expect(out).toEqual(["accepted", { status: "rejected", code: "unknown_prefix", error: "not held" }]);
    expect(db.$client.prepare("SELECT count(*) FROM requests").pluck().get()).toBe(0);
  });
});

describe("workers table", () => {
  it.each<[string, Raw[][], Partial<WorkerRow>]>([
    [
      "seen through stats only",
      [
        [
          stats("w1", M0 + 5_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 1000 }),
          stats("w1", M0 + 1_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 500 }),
          stats("w1", M0 + 9_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 2000 }),
        ],
      ],
      {
        role: null,
        model: null,
        kv_total_blocks: 2000,
        first_seen: M0 + 1_000,
        last_seen: M0 + 9_000,
        up_at: null,
        down_at: null,
      },
    ],
    [
      "an older sample in a later batch keeps the newest capacity but lowers first_seen",
      [
        [stats("w1", M0 + 5_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 1000 })],
        [stats("w1", M0 + 1_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 500 })],
      ],
      { kv_total_blocks: 1000, first_seen: M0 + 1_000, last_seen: M0 + 5_000 },
    ],
    [
      "worker.up then stats",
      [
        [minimal["worker.up"]({ ts: M0, role: "prefill", model: "m1", block_size: 32, kv_total_blocks: 4096 })],
        [stats("w1", M0 + 3_000, 0, 0)],
      ],
      { role: "prefill", model: "m1", block_size: 32, first_seen: M0, last_seen: M0 + 3_000, up_at: M0, down_at: null },
    ],
    [
      "stats then worker.up in one batch",
      [[stats("w1", M0 + 1_000, 0, 0), minimal["worker.up"]({ ts: M0 + 2_000, role: "aggregated" })]],
      { role: "aggregated", first_seen: M0 + 1_000, last_seen: M0 + 2_000, up_at: M0 + 2_000 },
    ],
    [
      "worker.up then worker.down",
      [[minimal["worker.up"]({ ts: M0 })], [minimal["worker.down"]({ ts: M0 + 60_000, reason: "drained" })]],
      {
        role: "decode",
        first_seen: M0,
        last_seen: M0 + 60_000,
        up_at: M0,
        down_at: M0 + 60_000,
        down_reason: "drained",
      },
    ],
    [
      "worker.down for a worker never seen before",
      [[minimal["worker.down"]({ ts: M0 + 7, worker_id: "w1" })]],
      { role: null, first_seen: M0 + 7, last_seen: M0 + 7, up_at: null, down_at: M0 + 7, down_reason: null },
    ],
    [
      "a later restart keeps the latest up_at",
      [
        [minimal["worker.up"]({ id: "u1", ts: M0 })],
        [minimal["worker.down"]({ ts: M0 + 1_000 })],
        [minimal["worker.up"]({ id: "u2", ts: M0 + 2_000 })],
      ],
      { up_at: M0 + 2_000, down_at: M0 + 1_000, first_seen: M0, last_seen: M0 + 2_000 },
    ],
  ])("%s", (_name, batches, expected) => {
    for (const b of batches) store(b);
    expect(worker()).toMatchObject({ worker_id: "w1", ...expected });
  });

  it("a duplicate worker.up changes nothing", () => {
    store([minimal["worker.up"]({ ts: M0 })]);
    const before = worker();
    store([minimal["worker.up"]({ ts: M0 + 99_000, role: "prefill" })]);
    expect(worker()).toEqual(before);
  });
});
