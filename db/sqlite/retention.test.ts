import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "./client";
import { testDb } from "../../test/db";
import { minimal, parsed, stats, T0, type Raw } from "../../test/events";
import { insertEvents } from "./ingest";
import { deleteRawBefore } from "./retention";
import { idKey } from "../ingest/kv-rows";

const CUTOFF = T0 + 3_600_000;

let db: Db;
beforeEach(() => {
  db = testDb();
});

const count = (table: string, where = "1") =>
  db.$client.prepare(`SELECT count(*) FROM ${table} WHERE ${where}`).pluck().get() as number;
const ids = (table: string) => db.$client.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all() as string[];

/** n samples for w1 every 10 s from `start`, and n kv events at the same times. */
function seed(start: number, n: number, tag: string) {
  const raws: Raw[] = [];
  for (let i = 0; i < n; i++) {
    const ts = start + i * 10_000;
    raws.push(stats("w1", ts, 100 * i, 50 * i, { id: `${tag}-s-${i}` }));
    raws.push(minimal["kv.stored"]({ id: `${tag}-kv-${i}`, ts }));
  }
  insertEvents(db, raws.map(parsed));
}

describe("deleteRawBefore", () => {
  it.each([
    ["default chunk", undefined],
    ["chunk of 7 (several chunks)", 7],
    ["chunk of 1", 1],
    ["chunk equal to the old row count", 25],
  ])("deletes raw rows older than the cutoff and keeps the rest (%s)", (_name, chunk) => {
    seed(CUTOFF - 250_000, 25, "old");
    seed(CUTOFF, 10, "new");
    insertEvents(db, [
      parsed(minimal.request({ id: "old-request", arrived_at: T0, ts: T0 })),
      parsed(minimal["worker.up"]({ id: "old-up" })),
    ]);
    const rollupsBefore = db.$client.prepare("SELECT * FROM worker_stats_1m ORDER BY minute").all();
    expect(rollupsBefore.length).toBeGreaterThan(1);

    const deleted = chunk === undefined ? deleteRawBefore(db, CUTOFF) : deleteRawBefore(db, CUTOFF, chunk);

    expect(deleted).toEqual({ worker_stats: 25, kv_events: 25, worker_stats_10s: 25, worker_stats_30s: 9 });
    expect(count("worker_stats_10s", `minute < ${CUTOFF}`)).toBe(0);
    expect(count("worker_stats_10s")).toBe(10);
    expect(count("worker_stats_30s", `minute < ${CUTOFF}`)).toBe(0);
    expect(count("worker_stats_30s")).toBe(4);
    expect(count("worker_stats", `ts < ${CUTOFF}`)).toBe(0);
    expect(count("kv_events", `ts < ${CUTOFF}`)).toBe(0);
    expect(ids("worker_stats")).toEqual(Array.from({ length: 10 }, (_, i) => `new-s-${i}`).sort());
    const kvKeys = db.$client.prepare("SELECT id_key FROM kv_events ORDER BY id_key").pluck().all();
    expect(kvKeys).toEqual(Array.from({ length: 10 }, (_, i) => idKey(`new-kv-${i}`)).sort((a, b) => a - b));
    expect(db.$client.prepare("SELECT * FROM worker_stats_1m ORDER BY minute").all()).toEqual(rollupsBefore);
    expect(ids("requests")).toEqual(["old-request"]);
    expect(ids("worker_events")).toEqual(["old-up"]);
    expect(count("workers")).toBe(1);
  });

  it("keeps a row exactly at the cutoff", () => {
    insertEvents(db, [
      parsed(stats("w1", CUTOFF - 1, 0, 0, { id: "before" })),
      parsed(stats("w1", CUTOFF, 0, 0, { id: "at" })),
    ]);
    expect(deleteRawBefore(db, CUTOFF, 1)).toEqual({
      worker_stats: 1,
      kv_events: 0,
      worker_stats_10s: 1,
      worker_stats_30s: 1,
    });
    expect(ids("worker_stats")).toEqual(["at"]);
  });

  it("is a no-op on an empty database", () => {
    expect(deleteRawBefore(db, CUTOFF, 3)).toEqual({
      worker_stats: 0,
      kv_events: 0,
      worker_stats_10s: 0,
      worker_stats_30s: 0,
    });
  });

  it("does not delete the counter baseline, so deltas continue after a sweep", () => {
    insertEvents(db, [parsed(stats("w1", CUTOFF - 10_000, 100, 40))]);
    deleteRawBefore(db, CUTOFF);
    insertEvents(db, [parsed(stats("w1", CUTOFF + 10_000, 160, 70))]);
    const r = db.$client
      .prepare("SELECT prefix_query_delta AS q, prefix_hit_delta AS h FROM worker_stats_1m WHERE minute = ?")
      .get(CUTOFF) as {
      q: number;
      h: number;
    };
    expect(r).toEqual({ q: 60, h: 30 });
  });
});
