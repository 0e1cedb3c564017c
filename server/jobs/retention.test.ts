import { afterEach, describe, expect, it, vi } from "vitest";
import { testDb } from "../../test/db";
import { minimal, parsed, stats, T0, type Raw } from "../../test/events";
import { insertEvents } from "../../db/sqlite/ingest";
import { retentionCutoff, retentionSweep, startRetentionSweeper, sweepRetention, tierCutoffs } from "./retention";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
import { log } from "../observability/logger";

describe("retentionCutoff", () => {
  it.each([
    [T0, 24, T0 - 86_400_000],
    [T0, 1, T0 - 3_600_000],
    [T0, 0.5, T0 - 1_800_000],
    [T0, 1 / 3, T0 - 1_200_000],
    [T0, 24 * 365, T0 - 31_536_000_000],
  ])("retentionCutoff(%i, %d h) = %i", (now, hours, cutoff) => {
    expect(retentionCutoff(now, hours)).toBe(cutoff);
  });

  it("returns whole milliseconds", () => {
    expect(Number.isInteger(retentionCutoff(T0, 0.0001234))).toBe(true);
  });
});

describe("tierCutoffs", () => {
  it.each([
    [
      { rawHours: 24, days: 30 },
      { raw: T0 - DAY, detail: T0 - 30 * DAY, summary: T0 - 400 * DAY },
    ],
    [
      { rawHours: 0.5, days: 1 },
      { raw: T0 - HOUR / 2, detail: T0 - DAY, summary: T0 - 400 * DAY },
    ],
  ])("%j", (settings, want) => {
    expect(tierCutoffs(T0, settings)).toEqual(want);
  });
});

const count = (db: ReturnType<typeof testDb>, table: string) =>
  db.$client.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

describe("sweepRetention", () => {
  it("ages every kind out by its tier and deletes many rows as many short statements, yielding between them", async () => {
    const db = testDb();
    const now = T0 + 40 * DAY;
    const raws: Raw[] = [];
    for (let i = 0; i < 1_000; i++) {
      const at = T0 + i * 1_000; // 40 days old: past the 30-day detail retention, within the 400-day rollups
      raws.push(
        minimal.request({ id: `old-r${i}`, request_id: `old-r${i}`, ts: at, arrived_at: at, session_id: "s-old" }),
      );
      raws.push(minimal.tool({ id: `old-t${i}`, ts: at, session_id: "s-old", tool_call_id: `c${i}`, started_at: at }));
    }
    raws.push(minimal["route.decision"]({ id: "old-rd", ts: T0, request_id: "old-r0" }));
    raws.push(minimal["planner.decision"]({ id: "old-pd", ts: T0 }));
    raws.push(minimal.reasoning({ id: "old-rs", ts: T0, request_id: "old-r0", started_at: T0, ended_at: T0 + 10 }));
    raws.push(
      minimal.request({ id: "new-r", request_id: "new-r", ts: now - DAY, arrived_at: now - DAY, session_id: "s-new" }),
    );
    raws.push(stats("w1", now - 2 * DAY, 0, 0), stats("w1", now - HOUR, 10, 5));
    insertEvents(db, raws.map(parsed));
    const rollups = count(db, "requests_1m");
    let pauses = 0;

    const r = await sweepRetention(db, tierCutoffs(now, { rawHours: 24, days: 30 }), 100, async () => void pauses++);

    expect(r.deleted).toMatchObject({
      requests: 1_000,
      tools: 1_000,
      route_decisions: 1,
      planner_decisions: 1,
      reasoning_spans: 1,
      worker_stats: 1,
      requests_1m: 0,
    });
    expect(r.transactions).toBeGreaterThanOrEqual(20);
    expect(pauses).toBeGreaterThanOrEqual(20);
    expect(db.$client.prepare("SELECT request_id FROM requests").pluck().all()).toEqual(["new-r"]);
    expect(count(db, "requests_1m")).toBe(rollups);
    expect(count(db, "worker_stats")).toBe(1);
  });

  it("drops rollups after 400 days", async () => {
    const db = testDb();
    insertEvents(db, [parsed(minimal.request({ id: "ancient", ts: T0, arrived_at: T0 }))]);
    const r = await sweepRetention(db, tierCutoffs(T0 + 401 * DAY, { rawHours: 24, days: 30 }));
    expect(r.deleted).toMatchObject({ requests: 1, requests_1m: 1 });
    expect(count(db, "requests_1m")).toBe(0);
  });
});

describe("startRetentionSweeper", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("sweeps at once, then every interval with the clock it is given, until stopped", async () => {
    vi.useFakeTimers();
    vi.spyOn(log(), "info").mockImplementation(() => {});
    const db = testDb();
    insertEvents(
      db,
      [0, 1, 2, 3].map((h) => parsed(stats("w1", T0 + h * HOUR, 0, 0))),
    );
    const remaining = () => db.$client.prepare("SELECT ts FROM worker_stats ORDER BY ts").pluck().all();
    let now = T0 + 2 * HOUR;

    const stop = startRetentionSweeper(retentionSweep(db, null), { rawHours: 1, days: 30 }, 60, () => now);
    await vi.advanceTimersByTimeAsync(0);
    expect(remaining()).toEqual([T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]);

    now = T0 + 4 * HOUR;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(remaining()).toEqual([T0 + 3 * HOUR]);

    stop();
    now = T0 + 10 * HOUR;
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(remaining()).toEqual([T0 + 3 * HOUR]);
  });

  it("logs a failed sweep instead of throwing", async () => {
    vi.useFakeTimers();
    const error = vi.spyOn(log(), "error").mockImplementation(() => {});
    const db = testDb();
    db.$client.close();
    const stop = startRetentionSweeper(retentionSweep(db, null), { rawHours: 1, days: 30 }, 60, () => T0);
    await vi.advanceTimersByTimeAsync(0);
    expect(error).toHaveBeenCalledWith({ err: expect.any(String) }, "retention sweep failed");
    stop();
  });
});
