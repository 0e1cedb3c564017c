import { afterEach, describe, expect, it, vi } from "vitest";
import { testDb } from "../../test/db";
import { parsed, stats, T0 } from "../../test/events";
import { storeEvents } from "../../db/queries/ingest";
import { retentionCutoff, startRetentionSweeper } from "./retention";
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

describe("startRetentionSweeper", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("sweeps at once, then every interval with the clock it is given, until stopped", () => {
    vi.useFakeTimers();
    vi.spyOn(log(), "info").mockImplementation(() => {});
    const db = testDb();
    const hour = 3_600_000;
    storeEvents(db, [0, 1, 2, 3].map((h) => parsed(stats("w1", T0 + h * hour, 0, 0))));
    const remaining = () => db.$client.prepare("SELECT ts FROM worker_stats ORDER BY ts").pluck().all();
    let now = T0 + 2 * hour;

    const stop = startRetentionSweeper(db, 1, 60, () => now);
    expect(remaining()).toEqual([T0 + hour, T0 + 2 * hour, T0 + 3 * hour]);

    now = T0 + 4 * hour;
    vi.advanceTimersByTime(60_000);
    expect(remaining()).toEqual([T0 + 3 * hour]);

    stop();
    now = T0 + 10 * hour;
    vi.advanceTimersByTime(10 * 60_000);
    expect(remaining()).toEqual([T0 + 3 * hour]);
  });

  it("logs a failed sweep instead of throwing", () => {
    vi.useFakeTimers();
    const error = vi.spyOn(log(), "error").mockImplementation(() => {});
    const db = testDb();
    db.$client.close();
    const stop = startRetentionSweeper(db, 1, 60, () => T0);
    expect(error).toHaveBeenCalledWith({ err: expect.any(String) }, "retention sweep failed");
    stop();
  });
});
