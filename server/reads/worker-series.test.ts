import { describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { testCaller, testDb } from "../../test/db";
import { parsed, stats, T0, type Raw } from "../../test/events";
import { insertEvents } from "../../db/sqlite/ingest";
import { deleteRawBefore } from "../../db/sqlite/retention";
import { sqliteStore } from "../../db/store/store";
import { columnsOfRows } from "../analysis/workers";
import { seriesColumns, seriesRows } from "./worker-series";

const MIN = 60_000;
const NOW = T0 + 70 * MIN;

/**
 * 70 minutes of samples: w1 every 5 s with a 2-minute silence, w2 every 3 s off the 10 s grid with a restart (counters
 * back near zero) on a 30 s boundary, w3 joining 40 minutes in. Counters grow by varying amounts; gauges vary.
 */
function samples(): Raw[] {
  const out: Raw[] = [];
  const add = (
    w: string,
    every: number,
    offset: number,
    from: number,
    restartAt: number | null,
    skip: [number, number] | null,
  ) => {
    let q = 1_000;
    let h = 0;
    for (let ts = from + offset, i = 0; ts < NOW; ts += every, i++) {
      if (skip && ts >= skip[0] && ts < skip[1]) continue;
      if (restartAt !== null && ts >= restartAt && ts - every < restartAt) q = h = 0;
      const dq = 100 + ((i * 7919) % 900);
      q += dq;
      h += Math.floor((dq * ((i * 31) % 100)) / 100);
      out.push(stats(w, ts, q, h, { kv_active_blocks: (i * 37) % 500, kv_total_blocks: w === "w3" ? 500 : 1000 }));
    }
  };
  add("w1", 5_000, 0, T0, null, [T0 + 40 * MIN, T0 + 42 * MIN]);
  add("w2", 3_000, 700, T0, T0 + 50 * MIN + 30_000, null);
  add("w3", 4_000, 1_300, T0 + 40 * MIN, null, null);
  return out.sort((a, b) => (a.ts as number) - (b.ts as number));
}

type Row = {
  workerId: string;
  t: number;
  samples: number;
  kvActive: number;
  kvTotal: number;
  query: number;
  hit: number;
};

/** Rows ordered by worker, then time. */
function ordered<R extends { workerId: string; t: number }>(rows: readonly R[]): R[] {
  return [...rows].sort((a, b) => (a.workerId === b.workerId ? a.t - b.t : a.workerId < b.workerId ? -1 : 1));
}

/** Bucket sums straight from the samples: each sample's counter delta against the worker's previous one (a drop: the new value). */
function expectedSeries(raws: Raw[], from: number, to: number, step: number): Row[] {
  const prev = new Map<string, [number, number]>();
  const out = new Map<string, Row>();
  for (const r of raws) {
    const w = r.worker_id as string;
    const ts = r.ts as number;
    const q = Number(r.prefix_query_tokens);
    const h = Number(r.prefix_hit_tokens);
    const p = prev.get(w);
    prev.set(w, [q, h]);
    if (ts < from || ts >= to) continue;
    const reset = p !== undefined && (q < p[0] || h < p[1]);
    const dq = p === undefined ? 0 : reset ? q : q - p[0];
    const dh = p === undefined ? 0 : reset ? h : h - p[1];
    const t = ts - (ts % step);
    const k = `${w}@${t}`;
    const b = out.get(k) ?? { workerId: w, t, samples: 0, kvActive: 0, kvTotal: 0, query: 0, hit: 0 };
    out.set(k, {
      ...b,
      samples: b.samples + 1,
      kvActive: b.kvActive + (r.kv_active_blocks as number),
      kvTotal: b.kvTotal + (r.kv_total_blocks as number),
      query: b.query + dq,
      hit: b.hit + dh,
    });
  }
  return ordered([...out.values()]);
}

/** Ingest in batches of `size` events (batches split 10 s buckets and carry counters across). */
function seeded(size: number): Db {
  const db = testDb();
  const all = samples().map(parsed);
  for (let i = 0; i < all.length; i += size) insertEvents(db, all.slice(i, i + size));
  return db;
}

describe("10- and 30-second worker rollups", () => {
  it.each([
    ["worker_stats_30s", 30_000],
    ["worker_stats_1m", 60_000],
    ["worker_stats_5m", 300_000],
  ])("the 10 s rows sum to the rows of %s, across batches", (table, size) => {
    const db = seeded(101);
    const q = (sql: string) => db.$client.prepare(sql).all();
    expect(q(`SELECT * FROM ${table} ORDER BY worker_id, minute`)).toEqual(
      q(`SELECT worker_id, minute - minute % ${size} AS minute, sum(samples) AS samples, sum(kv_active_sum) AS kv_active_sum, max(kv_active_max) AS kv_active_max,
           sum(kv_total_sum) AS kv_total_sum, sum(running_sum) AS running_sum, max(running_max) AS running_max, sum(waiting_sum) AS waiting_sum,
           max(waiting_max) AS waiting_max, sum(prefix_query_delta) AS prefix_query_delta, sum(prefix_hit_delta) AS prefix_hit_delta,
           sum(counter_resets) AS counter_resets, max(utilization_max) AS utilization_max, min(preemptions_min) AS preemptions_min,
           max(preemptions_max) AS preemptions_max, sum(batch_tokens_sum) AS batch_tokens_sum, sum(batch_samples) AS batch_samples
         FROM worker_stats_10s GROUP BY 1, 2 ORDER BY 1, 2`),
    );
    expect(
      db.$client.prepare("SELECT sum(counter_resets) FROM worker_stats_10s WHERE worker_id = 'w2'").pluck().get(),
    ).toBe(1);
  });

  it.each([
    ["15 min in 10 s buckets from 10 s rows", 15 * MIN, 10_000, "10s", []],
    ["1 h in 30 s buckets from 10 s rows", 60 * MIN, 30_000, "10s", ["w3"]],
    ["1 h in 30 s buckets from 30 s rows", 60 * MIN, 30_000, "30s", ["w3"]],
    ["1 h in 1 min buckets from 30 s rows (w2 restarts inside a bucket)", 60 * MIN, 60_000, "30s", ["w3", "w2"]],
    ["1 h in 1 min buckets from 10 s rows", 60 * MIN, 60_000, "10s", ["w3", "w2"]],
  ] as const)(
    "gives the series of the samples themselves: %s, all workers and one",
    async (_name, span, step, source, rawDiffers) => {
      const db = seeded(257);
      const from = NOW - span;
      const truth = expectedSeries(samples(), from, NOW, step);
      const rolled = await seriesRows(sqliteStore(db), { from, to: NOW, step, source });
      expect(rolled.length).toBeGreaterThan(span / step);
      expect(ordered(rolled)).toEqual(truth);
      for (const w of ["w1", "w2", "w3"]) {
        expect(await seriesRows(sqliteStore(db), { from, to: NOW, step, source, workerId: w })).toEqual(
          truth.filter((r) => r.workerId === w),
        );
        // The columns the database aggregates: the same ratios, to the last bit, as JS takes of the true sums.
        expect(await seriesColumns(sqliteStore(db), { from, to: NOW, step, source, workerId: w })).toEqual(
          columnsOfRows(truth.filter((r) => r.workerId === w)),
        );
      }
      expect(await seriesColumns(sqliteStore(db), { from, to: NOW, step, source })).toEqual(columnsOfRows(truth));
      // One chart's columns alone: the same values, the other column empty.
      for (const [chart, other] of [
        ["util", "hitRate"],
        ["hitRate", "util"],
      ] as const)
        expect(await seriesColumns(sqliteStore(db), { from, to: NOW, step, source, charts: [chart] })).toEqual(
          columnsOfRows(truth).map((c) => ({ ...c, [other]: [] })),
        );
      const rawColumns = await seriesColumns(sqliteStore(db), { from, to: NOW, step, source: "raw" });
      expect(await seriesColumns(sqliteStore(db), { from, to: NOW, step, source: "raw", charts: ["hitRate"] })).toEqual(
        rawColumns.map((c) => ({ ...c, util: [] })),
      );
      // Raw samples give the same buckets, except the one where a worker first reported (no earlier sample to take a
      // delta from: raw counts nothing for the whole bucket) and one where it restarted inside (raw drops what came before).
      const raw = ordered(await seriesRows(sqliteStore(db), { from, to: NOW, step, source: "raw" }));
      const differing = raw.filter((r, i) => JSON.stringify(r) !== JSON.stringify(truth[i]));
      expect(raw.map(({ query: _q, hit: _h, ...g }) => g)).toEqual(truth.map(({ query: _q, hit: _h, ...g }) => g));
      expect(differing.map((r) => r.workerId).sort()).toEqual([...rawDiffers].sort());
      for (const r of differing)
        expect(r.query).toBeLessThan(truth.find((x) => x.workerId === r.workerId && x.t === r.t)!.query);
    },
  );

  it.each([
    ["1h", 30_000, "30s"],
    ["15m", 10_000, "10s"],
  ] as const)(
    "serves the %s chart with the points raw samples give (where a worker reported before the range)",
    async (preset, step, source) => {
      const db = seeded(500);
      const caller = testCaller(db, () => NOW);
      const rolled = await caller.workers.series({ range: { preset } });
      expect(rolled).toMatchObject({ step, source });
      db.$client.exec("DELETE FROM worker_stats_10s; DELETE FROM worker_stats_30s");
      const fromRaw = await caller.workers.series({ range: { preset } });
      expect(fromRaw.source).toBe("raw");
      expect(rolled.workers.map((w) => w.workerId)).toEqual(["w1", "w2", "w3"]);
      const firstOfW3 = T0 + 40 * MIN;
      const drop = (ws: typeof rolled.workers) =>
        ws.map((w) => {
          const keep = w.t.map((t) => !(w.workerId === "w3" && t === firstOfW3));
          const only = <V>(xs: V[]) => xs.filter((_, i) => keep[i]);
          return { workerId: w.workerId, t: only(w.t), util: only(w.util), hitRate: only(w.hitRate) };
        });
      expect(drop(rolled.workers)).toEqual(drop(fromRaw.workers));
      expect(rolled.workers[0]!.t.length).toBeGreaterThan(50);
    },
  );

  it("reads raw samples while the 10 s rollup does not reach back as far (a database from before it existed)", async () => {
    const db = seeded(500);
    db.$client.prepare("DELETE FROM worker_stats_10s WHERE minute < ?").run(NOW - 30 * MIN);
    const s = await testCaller(db, () => NOW).workers.series({ range: { preset: "1h" } });
    expect(s.source).toBe("raw");
    expect(s.workers.find((w) => w.workerId === "w1")!.t[0]).toBe(NOW - 60 * MIN);
  });

  it("ages out with the raw samples: a row goes once its whole bucket is before the cutoff", () => {
    const db = seeded(500);
    const cutoff = T0 + 30 * MIN + 5_000;
    const minutesBefore = db.$client
      .prepare("SELECT count(*) FROM worker_stats_1m WHERE minute < ?")
      .pluck()
      .get(T0 + 30 * MIN) as number;
    const deleted = deleteRawBefore(db, cutoff);
    const oldest = (table: string) => db.$client.prepare(`SELECT min(minute) FROM ${table}`).pluck().get();
    expect(oldest("worker_stats_10s")).toBe(T0 + 30 * MIN);
    expect(oldest("worker_stats_30s")).toBe(T0 + 30 * MIN);
    expect(deleted.worker_stats_10s).toBe(minutesBefore * 6);
    expect(deleted.worker_stats_30s).toBe(minutesBefore * 2);
  });
});
