import { describe, expect, it } from "vitest";
import {
  formatMsPair,
  formatAgo,
  formatBytes,
  formatCompact,
  formatCount,
  formatDateTime,
  formatDecimal,
  formatMs,
  formatPercent,
  formatPercentPoints,
  formatRange,
  formatRate,
  formatSeconds,
  formatRoles,
  formatTime,
  NO_DATA,
} from "./format";

const T0 = 1_764_417_600_000; // 2025-11-29T12:00:00Z

describe("no data renders as an em dash, never 0", () => {
  it.each<[string, () => string]>([
    ["formatPercent", () => formatPercent(null)],
    ["formatPercent with digits", () => formatPercent(undefined, 0)],
    ["formatMs", () => formatMs(null)],
    ["formatRate", () => formatRate(null)],
    ["formatCount", () => formatCount(undefined)],
    ["formatDecimal", () => formatDecimal(null)],
    ["formatBytes", () => formatBytes(null)],
    ["formatRoles", () => formatRoles({})],
    ["formatDateTime", () => formatDateTime(null, "UTC")],
    ["formatTime", () => formatTime(null, T0, "UTC")],
    ["formatAgo", () => formatAgo(null, T0)],
    ["NaN", () => formatPercent(Number.NaN)],
  ])("%s(null) = —", (_name, fn) => {
    expect(fn()).toBe("—");
    expect(NO_DATA).toBe("—");
  });
});

describe("formatPercent", () => {
  it.each<[number, number | undefined, string]>([
    [0, undefined, "0.0%"],
    [0.8992, undefined, "89.9%"],
    [1, undefined, "100.0%"],
    [0.12345, 2, "12.35%"],
    [0.5, 0, "50%"],
  ])("formatPercent(%d, %j) = %s", (v, digits, out) => {
    expect(digits === undefined ? formatPercent(v) : formatPercent(v, digits)).toBe(out);
  });
});

describe("formatPercentPoints", () => {
  it.each<[number | null, string]>([
    [95, "95.0%"],
    [57.3, "57.3%"],
    [81.25, "81.3%"],
    [80.04, "80.0%"],
    [0, "0.0%"],
    [null, "—"],
  ])("formatPercentPoints(%j) = %s", (v, out) => expect(formatPercentPoints(v)).toBe(out));
});

describe("formatMsPair", () => {
  it.each<[number | null, number | null, string]>([
    [20, 135, "20 / 135 ms"],
    [20, 12_345, "20 ms / 12.3 s"],
    [null, 40, "— / 40 ms"],
    [null, null, "— / —"],
  ])("formatMsPair(%j, %j) = %s", (a, b, out) => expect(formatMsPair(a, b)).toBe(out));
});

describe("formatMs", () => {
  it.each<[number, string]>([
    [0, "0 ms"],
    [99.6, "100 ms"],
    [183, "183 ms"],
    [9_999, "9999 ms"],
    [10_000, "10.0 s"],
    [12_345, "12.3 s"],
    [119_900, "119.9 s"],
    [840_000, "14 min"],
    [12_600_000, "3.5 h"],
  ])("formatMs(%d) = %s", (v, out) => {
    expect(formatMs(v)).toBe(out);
  });
});

describe("formatSeconds", () => {
  it.each<[number | null, string]>([
    [0.183, "183 ms"],
    [2.5, "2500 ms"],
    [12.34, "12.3 s"],
    [null, "—"],
  ])("formatSeconds(%j) = %s", (v, out) => expect(formatSeconds(v)).toBe(out));
});

describe("formatRate", () => {
  it.each<[number, string]>([
    [0, "0.00"],
    [22 / 900, "0.02"],
    [3.14159, "3.14"],
    [12.34, "12.3"],
    [99.94, "99.9"],
    [100, "100"],
    [1234.4, "1234"],
  ])("formatRate(%d) = %s", (v, out) => {
    expect(formatRate(v)).toBe(out);
  });
});

describe("formatCount, formatDecimal, formatBytes", () => {
  it.each<[() => string, string]>([
    [() => formatCount(0), "0"],
    [() => formatCount(1234567), "1,234,567"],
    [() => formatDecimal(12), "12"],
    [() => formatDecimal(12000), "12,000"],
    [() => formatDecimal(12.5), "12.50"],
    [() => formatDecimal(12.55, 1), "12.6"],
    [() => formatCompact(950), "950"],
    [() => formatCompact(12_400), "12k"],
    [() => formatCompact(1_250_000), "1.3M"],
    [() => formatBytes(512), "512 B"],
    [() => formatBytes(12 * 1024 + 100), "12 KiB"],
    [() => formatBytes(3.4 * 1024 ** 2), "3.4 MiB"],
    [() => formatBytes(1.25 * 1024 ** 3), "1.3 GiB"],
  ])("%s", (fn, out) => expect(fn()).toBe(out));
});

describe("formatRoles", () => {
  it.each<[Record<string, number>, string]>([
    [{ prefill: 1, aggregated: 3 }, "3 aggregated · 1 prefill"],
    [{ decode: 2, unknown: 1, prefill: 1 }, "1 prefill · 2 decode · 1 unknown"],
    [{ zeta: 1, alpha: 2, decode: 1 }, "1 decode · 2 alpha · 1 zeta"],
  ])("%j → %s", (byRole, out) => {
    expect(formatRoles(byRole)).toBe(out);
  });
});

describe("times: 24-hour clock in the given zone", () => {
  it.each<[() => string, string]>([
    [() => formatTime(T0 + 5_000, T0 + 60_000, "UTC"), "12:00:05"],
    [() => formatTime(T0 - 13 * 3_600_000, T0, "UTC"), "2025-11-28 23:00:00"],
    [() => formatTime(T0, T0 + 3 * 86_400_000, "UTC"), "2025-11-29 12:00:00"],
    [() => formatTime(T0 - 9 * 3_600_000 + 28 * 60_000, T0, "UTC"), "03:28:00"],
    [() => formatTime(T0, T0, "Europe/Berlin"), "13:00:00"],
    [() => formatTime(T0 + 11 * 3_600_000 + 5_000, T0, "Europe/Berlin"), "2025-11-30 00:00:05"],
    [() => formatDateTime(T0, "UTC"), "2025-11-29 12:00:00"],
    [() => formatDateTime(T0, "America/New_York"), "2025-11-29 07:00:00"],
    [() => formatRange(T0 - 3_600_000, T0, "UTC"), "2025-11-29 11:00:00 – 12:00:00"],
    [() => formatRange(T0 - 86_400_000, T0, "UTC"), "2025-11-28 12:00:00 – 2025-11-29 12:00:00"],
  ])("%s", (fn, out) => expect(fn()).toBe(out));
});

describe("formatAgo", () => {
  it.each<[number, string]>([
    [T0, "just now"],
    [T0 + 500, "just now"],
    [T0 - 42_000, "42 s ago"],
    [T0 - 59_000, "59 s ago"],
    [T0 - 60_000, "1 min ago"],
    [T0 - 89_000, "1 min ago"],
    [T0 - 5 * 60_000, "5 min ago"],
    [T0 - 3_599_000, "59 min ago"],
    [T0 - 3 * 3_600_000, "3 h ago"],
    [T0 - 2 * 86_400_000, "2 d ago"],
    [T0 + 8_000, "in 8 s"],
  ])("formatAgo(%d)", (at, out) => expect(formatAgo(at, T0)).toBe(out));
});
