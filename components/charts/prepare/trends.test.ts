import { describe, expect, it } from "vitest";
import type { TrendPoint } from "@/server/analysis/trends";
import { sparkEmpty, sparkRows, sparkSummary } from "./trends";

const W = { from: 0, to: 30, step: 10 };
const p = (t: number, o: Partial<TrendPoint>): TrendPoint => ({
  t,
  requestsPerSecond: null,
  ttftP50Ms: null,
  itlP95Ms: null,
  prefixHitRate: null,
  kvUtilization: null,
  ...o,
});

describe("sparkRows", () => {
  const points = [
    p(0, { requestsPerSecond: 0, prefixHitRate: 0.8123 }),
    p(20, { requestsPerSecond: 2.5, prefixHitRate: null }),
  ];
  it.each<[string, Parameters<typeof sparkRows>[1], (number | null)[]]>([
    ["a rate keeps its unit and a real 0", "requestsPerSecond", [0, null, 2.5]],
    ["a ratio becomes percent; gaps stay null", "prefixHitRate", [81.2, null, null]],
    ["a KPI with no data is all gaps", "kvUtilization", [null, null, null]],
  ])("%s", (_name, key, values) => {
    expect(sparkRows(points, key, W).map((r) => r.v)).toEqual(values);
  });
});

describe("sparkSummary / sparkEmpty", () => {
  it.each<[(number | null)[], string, boolean]>([
    [[null, null], "no data in this range", true],
    [[2, null, 5, 3, null], "low 2.0, high 5.0, last 3.0", false],
    [[0], "low 0.0, high 0.0, last 0.0", false],
  ])("%j", (values, text, empty) => {
    const rows = values.map((v, t) => ({ t, v }));
    expect(sparkSummary(rows, (v) => v.toFixed(1))).toBe(text);
    expect(sparkEmpty(rows)).toBe(empty);
  });
});
