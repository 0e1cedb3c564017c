// PostgreSQL's ingest writes the same rollups as SQLite's: one stream, posted batch by batch through each engine's
// ingest body, then every rollup table and the workers page's series read through the store compared row by row.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PgDb } from "../../../db/pg/client";
import { forgetRecentRequests } from "../../../db/pg/ingest";
import { pgStore, sqliteStore } from "../../../db/store/store";
import { rollupBuckets, type RollupResolution } from "../../../db/store/workers";
import { testDb } from "../../../test/db";
import { full, minimal, ndjson, stats, T0, type Raw } from "../../../test/events";
import { freshPg, PG_TEST_URL } from "../../../test/pg";
import { ingestBodyTallied } from "../ingest";
import { runScenario } from "../../sim/test-support";
import { ingestBodyPg } from "./ingest-body";

/** Every rollup table ingest writes, with the columns that order its rows. */
const ROLLUPS: [string, string][] = [
  ["worker_stats_10s", "worker_id, minute"],
  ["worker_stats_30s", "worker_id, minute"],
  ["worker_stats_1m", "worker_id, minute"],
  ["worker_stats_5m", "worker_id, minute"],
  ["worker_stats_15m", "worker_id, minute"],
  ["worker_counters", "worker_id"],
  ["requests_1m", "minute"],
  ["request_ttft_1m", "minute, bucket"],
  ["request_itl_1m", "minute, worker_id, stat, bucket"],
  ["route_decisions_1m", "minute, chosen_worker_id"],
  ["route_decisions_15m", "minute, chosen_worker_id"],
  ["kv_tiers_1m", "worker_id, minute, tier"],
  ["worker_tier_blocks", "worker_id, tier"],
  ["request_tiers_1m", "worker_id, minute"],
];
const RESOLUTIONS: [RollupResolution, number][] = [
  ["10s", 10_000],
  ["30s", 30_000],
  ["1m", 60_000],
  ["5m", 300_000],
  ["15m", 900_000],
];
const MIN = 60_000;

const kv = (kind: "kv.stored" | "kv.removed", id: string, ts: number, n: number, o: Raw = {}) =>
  full[kind]({ id, ts, worker_id: "w1", block_hashes: Array.from({ length: n }, (_, i) => String(ts + i)), ...o });

/** Each case: batches of raw events, posted one after another. */
const CASES: [string, () => Raw[][]][] = [
  [
    "counter deltas across batches, a counter reset, a sample older than the last, a re-sent batch",
    () => {
      const a = [stats("w1", T0 + 1_000, 100, 40), stats("w2", T0 + 2_000, 10, 5), stats("w1", T0 + 12_000, 300, 90)];
      return [
        a,
        [stats("w1", T0 + 25_000, 50, 10), stats("w1", T0 + 11_000, 200, 80), stats("w2", T0 + 70_000, 20, 9)],
        a,
        [stats("w1", T0 + 16 * MIN, 400, 100, { preemptions: "7", batch_tokens: 512.5 })],
      ];
    },
  ],
  [
    "requests: TTFT, ITL, tiers, preemptions, requests without a worker",
    () => [
      [
        full.request({ id: "rq1", arrived_at: T0, first_token_at: T0 + 180 }),
        minimal.request({ id: "rq2", arrived_at: T0 + 5_000, ts: T0 + 5_000 }),
      ],
      [
        full.request({ id: "rq3", request_id: "r3", arrived_at: T0 + 61_000, ts: T0 + 61_000 }),
        full.request({ id: "rq1", arrived_at: T0, first_token_at: T0 + 180 }),
      ],
    ],
  ],
  [
    "routing decisions per minute and per 15 minutes",
    () => [
      [
        full["route.decision"]({ id: "d1", ts: T0 }),
        full["route.decision"]({ id: "d2", ts: T0 + 30_000 }),
        minimal["route.decision"]({ id: "d3", ts: T0 + 20 * MIN }),
      ],
      [full["route.decision"]({ id: "d4", ts: T0 + 90_000 }), full["route.decision"]({ id: "d1", ts: T0 })],
    ],
  ],
  [
    "KV blocks per tier: stored, offloaded, onboarded, removed past zero, cleared",
    () => [
      [
        kv("kv.stored", "k1", T0, 5),
        kv("kv.stored", "k2", T0 + 1_000, 3, { storage_tier: "host" }),
        kv("kv.stored", "k3", T0 + 2_000, 2, { onboarded_from: "host" }),
      ],
      [kv("kv.removed", "k4", T0 + 61_000, 9), minimal["kv.cleared"]({ id: "k5", ts: T0 + 62_000, worker_id: "w1" })],
      [kv("kv.stored", "k6", T0 + 63_000, 4), kv("kv.stored", "k1", T0, 5)],
    ],
  ],
  [
    "the steady scenario's first 90 simulated seconds, in batches of 400",
    () => {
      const events = runScenario({ scenario: "steady", seconds: 90 }) as unknown as Raw[];
      const out: Raw[][] = [];
      for (let i = 0; i < events.length; i += 400) out.push(events.slice(i, i + 400));
      return out;
    },
  ],
];

/** Rows as plain values (int8 and numeric text as numbers), so both engines' rows compare. */
const plain = (rows: readonly Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])));

describe.skipIf(!PG_TEST_URL)("PostgreSQL ingest writes SQLite's rollups", () => {
  let pg: PgDb;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
  });
  afterAll(() => drop?.());
  beforeEach(async () => {
    const tables = [...ROLLUPS.map(([t]) => t), "worker_stats", "kv_events", "requests", "route_decisions", "workers"];
    await pg.$client.unsafe(`TRUNCATE ${tables.join(", ")}, worker_events, tools, reasoning_spans, source_status`);
    forgetRecentRequests(pg);
  });

  it.each(CASES)("%s", async (_name, make) => {
    const batches = make();
    const sqlite = testDb();
    for (const b of batches) {
      const body = ndjson(b);
      const s = ingestBodyTallied(sqlite, body, "application/x-ndjson").reply;
      const p = (await ingestBodyPg(pg, body, "application/x-ndjson")).reply;
      expect(p).toEqual(s);
    }
    for (const [table, order] of ROLLUPS) {
      const s = sqlite.$client.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all() as Record<string, unknown>[];
      const p = await pg.$client.unsafe(`SELECT * FROM ${table} ORDER BY ${order}`);
      expect({ table, rows: plain(p) }).toEqual({ table, rows: plain(s) });
    }
    const ts = batches.flat().map((e) => Number(e.ts));
    const [from, to] = [Math.min(...ts) - 20 * MIN, Math.max(...ts) + 20 * MIN];
    for (const [resolution, step] of RESOLUTIONS)
      for (const workerId of [undefined, "w1"]) {
        const opts = { from, to, step: step * 2, resolution, workerId };
        const order = (rows: Awaited<ReturnType<typeof rollupBuckets>>) =>
          [...rows].sort((a, b) => a.workerId.localeCompare(b.workerId) || a.t - b.t);
        const [s, p] = await Promise.all([rollupBuckets(sqliteStore(sqlite), opts), rollupBuckets(pgStore(pg), opts)]);
        expect({ resolution, workerId, rows: order(p) }).toEqual({ resolution, workerId, rows: order(s) });
      }
    sqlite.$client.close();
  });

  it("a case above would fail on rollups left unwritten (the comparison is not vacuous)", async () => {
    const body = ndjson([stats("w1", T0 + 1_000, 100, 40), full.request({ id: "nv1" })]);
    await ingestBodyPg(pg, body, "application/x-ndjson");
    const counts = await Promise.all(
      ROLLUPS.map(async ([t]) => Number((await pg.$client.unsafe(`SELECT count(*) AS n FROM ${t}`))[0]!.n)),
    );
    expect(counts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(9);
  });
});
