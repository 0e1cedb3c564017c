import { describe, expect, it } from "vitest";
import { formatCount, formatMs, formatPercent, formatRate, formatRoles, NO_DATA } from "./format";

describe("no data renders as an em dash, never 0", () => {
  it.each<[string, () => string]>([
    ["formatPercent", () => formatPercent(null)],
    ["formatPercent with digits", () => formatPercent(null, 0)],
    ["formatMs", () => formatMs(null)],
    ["formatRate", () => formatRate(null)],
    ["formatCount", () => formatCount(null)],
    ["formatRoles", () => formatRoles({})],
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

describe("formatMs", () => {
  it.each<[number, string]>([
    [0, "0 ms"],
    [99.6, "100 ms"],
    [168, "168 ms"],
    [9_999, "9999 ms"],
    [10_000, "10.0 s"],
    [12_345, "12.3 s"],
  ])("formatMs(%d) = %s", (v, out) => {
    expect(formatMs(v)).toBe(out);
  });
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

describe("formatCount", () => {
  it.each<[number, string]>([
    [0, "0"],
    [999, "999"],
    [1234567, "1,234,567"],
  ])("formatCount(%i) = %s", (v, out) => {
    expect(formatCount(v)).toBe(out);
  });
});

describe("formatRoles", () => {
  it.each<[Record<string, number>, string]>([
    [{ prefill: 1, aggregated: 3 }, "3 aggregated · 1 prefill"],
    [{ decode: 2, unknown: 1, prefill: 1 }, "1 prefill · 2 decode · 1 unknown"],
    [{ zeta: 1, alpha: 2, decode: 1 }, "1 decode · 2 alpha · 1 zeta"],
    [{ decode: 4 }, "4 decode"],
  ])("%j → %s", (byRole, out) => {
    expect(formatRoles(byRole)).toBe(out);
  });
});
