import { describe, expect, it } from "vitest";
import { counterDelta, minuteOf, type CounterDelta, type CounterSample } from "./counters";

const T = 1_764_417_600_000;
const s = (ts: number, query: string, hit: string): CounterSample => ({ ts, query, hit });

describe("counterDelta", () => {
  it.each<[string, CounterSample | undefined, CounterSample, CounterDelta | null]>([
    ["first sample (no previous)", undefined, s(T, "100", "50"), null],
    ["same timestamp as the previous", s(T, "100", "50"), s(T, "300", "120"), null],
    ["older than the previous (out of order)", s(T, "100", "50"), s(T - 1, "50", "10"), null],
    ["normal increase", s(T, "100", "50"), s(T + 10_000, "300", "120"), { query: 200, hit: 70, reset: false }],
    ["no change", s(T, "100", "50"), s(T + 10_000, "100", "50"), { query: 0, hit: 0, reset: false }],
    [
      "query counter dropped (restart): delta is the new value",
      s(T, "1000", "800"),
      s(T + 1, "50", "20"),
      { query: 50, hit: 20, reset: true },
    ],
    [
      "hit counter dropped alone (restart)",
      s(T, "1000", "800"),
      s(T + 1, "1200", "30"),
      { query: 1200, hit: 30, reset: true },
    ],
    [
      "hit delta larger than query delta is capped",
      s(T, "100", "0"),
      s(T + 1, "110", "50"),
      { query: 10, hit: 10, reset: false },
    ],
    [
      "after a reset, hit above query is capped",
      s(T, "1000", "900"),
      s(T + 1, "50", "80"),
      { query: 50, hit: 50, reset: true },
    ],
    [
      "values beyond 2^53 subtract exactly",
      s(T, "9223372036854775000", "9223372036854770000"),
      s(T + 1, "9223372036854775807", "9223372036854770500"),
      { query: 807, hit: 500, reset: false },
    ],
  ])("%s", (_name, prev, next, expected) => {
    expect(counterDelta(prev, next)).toEqual(expected);
  });
});

describe("minuteOf", () => {
  it.each([
    [T, T],
    [T + 1, T],
    [T + 59_999, T],
    [T + 60_000, T + 60_000],
    [T - 1, T - 60_000],
  ])("minuteOf(%i) = %i", (ts, minute) => {
    expect(minuteOf(ts)).toBe(minute);
  });
});
