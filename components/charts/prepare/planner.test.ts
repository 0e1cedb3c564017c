import { describe, expect, it } from "vitest";
import type { PlannerBucket, RoleSeries } from "@/server/analysis/planner";
import {
  actionStyle,
  bucketAction,
  currentReplicas,
  formatMetric,
  formatRawMetric,
  metricLabel,
  plannerRows,
  replicaTicks,
  timeTicks,
  toDisplay,
} from "./planner";

const W = { from: 0, to: 200_000, step: 10_000 };
const b = (t: number, o: Partial<PlannerBucket> = {}): PlannerBucket => ({
  role: "decode",
  model: null,
  metric: "decode_kv_utilization",
  t,
  decisions: 1,
  observed: 0.6,
  peak: 0.6,
  up: 0.9,
  down: 0.5,
  replicas: 2,
  ups: 0,
  downs: 0,
  ...o,
});
const series = (buckets: PlannerBucket[], start: RoleSeries["start"] = null): RoleSeries => ({
  role: "decode",
  model: null,
  metric: "decode_kv_utilization",
  start,
  buckets,
  decisions: buckets.length,
  scaleUps: 0,
  scaleDowns: 0,
});

describe("plannerRows", () => {
  it("starts with the state in force, shows KV in percent, marks actions, and carries the last state to the end", () => {
    const rows = plannerRows(
      series([b(170_000, { observed: 0.95, peak: 0.95, replicas: 3, ups: 1 })], {
        role: "decode",
        model: null,
        ts: -5,
        replicas: 2,
        up: 0.9,
        down: 0.5,
      }),
      W,
    );
    expect(rows).toEqual([
      { t: 0, replicas: 2, observed: null, peak: null, up: 90, down: 50, action: null, decisions: 0 },
      { t: 170_000, replicas: 3, observed: 95, peak: 95, up: 90, down: 50, action: "scale_up", decisions: 1 },
      { t: 200_000, replicas: 3, observed: null, peak: null, up: 90, down: 50, action: null, decisions: 0 },
    ]);
  });

  it("breaks the lines where the planner fell silent for more than three intervals", () => {
    const rows = plannerRows(series([b(0), b(20_000), b(40_000), b(140_000)]), W);
    expect(rows.map((r) => [r.t, r.replicas])).toEqual([
      [0, 2],
      [20_000, 2],
      [40_000, 2],
      [50_000, null],
      [140_000, 2],
      [200_000, 2],
    ]);
  });

  it("does not carry a silent planner to the end of the range", () => {
    const rows = plannerRows(series([b(0), b(20_000)]), W);
    expect(rows.map((r) => r.t)).toEqual([0, 20_000]);
  });

  it("has no rows without decisions or a prior state", () => {
    expect(plannerRows(series([]), W)).toEqual([]);
  });
});

describe("units and labels", () => {
  it.each<[string | null, number | null, number | null, string]>([
    ["decode_kv_utilization", 0.955, 95.5, "95.5%"],
    ["prefill_queue", 0.6, 0.6, "0.60"],
    ["prefill_queue", null, null, "—"],
  ])("%s %j → %j → %s", (metric, raw, display, text) => {
    expect(toDisplay(metric, raw)).toBe(display);
    expect(formatMetric(metric, display)).toBe(text);
    if (raw !== null) expect(formatRawMetric(metric, raw)).toBe(text);
  });

  it.each<[string | null, string, string]>([
    ["prefill_queue", "prefill", "Prefill queue"],
    ["decode_kv_utilization", "decode", "Decode KV utilization"],
    ["decode_kv_utilization", "aggregated", "KV utilization"],
  ])("metricLabel(%s, %s) = %s", (metric, role, label) => {
    expect(metricLabel(metric, role)).toBe(label);
  });

  it.each<[number, number, string, string]>([
    [1, 0, "scale_up", "scale up"],
    [0, 2, "scale_down", "scale down"],
    [1, 1, "mixed", "up and down"],
    [0, 0, "none", "no change"],
  ])("bucketAction(%d, %d) = %s", (ups, downs, action, label) => {
    expect(bucketAction(ups, downs)).toBe(action);
    expect(actionStyle(action).label).toBe(label);
  });

  it("current replicas come from the latest decision, else the state at the range start", () => {
    expect(currentReplicas(series([b(0, { replicas: 5 })]))).toBe(5);
    expect(currentReplicas(series([], { role: "decode", model: null, ts: 0, replicas: 3, up: 1, down: 0 }))).toBe(3);
    expect(currentReplicas(series([]))).toBeNull();
  });
});

describe("axis ticks", () => {
  const T = 1_764_417_600_000; // 12:00:00Z
  it.each<[string, number, number, number[]]>([
    [
      "an hour at 10-minute marks",
      T - 3_600_000 + 7_000,
      T + 7_000,
      [1, 2, 3, 4, 5, 6].map((k) => T - 3_600_000 + k * 600_000),
    ],
    ["15 minutes at 5-minute marks", T - 15 * 60_000 + 1_000, T + 1_000, [T - 10 * 60_000, T - 5 * 60_000, T]],
    ["an empty window", T, T, []],
  ])("timeTicks: %s", (_name, from, to, ticks) => {
    expect(timeTicks({ from, to })).toEqual(ticks);
  });

  it.each<[(number | null)[], number[]]>([
    [[], [0, 1, 2]],
    [
      [null, 1],
      [0, 1, 2],
    ],
    [
      [3, 6],
      [0, 2, 4, 6, 8],
    ],
    [[4], [0, 1, 2, 3, 4, 5]],
    [[23], [0, 5, 10, 15, 20, 25]],
  ])("replicaTicks(%j) = %j", (replicas, ticks) => {
    expect(replicaTicks(replicas.map((r) => ({ replicas: r })))).toEqual(ticks);
  });
});
