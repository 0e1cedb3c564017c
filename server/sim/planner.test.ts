import { describe, expect, it } from "vitest";
import { defaultPolicies } from "../../lib/policies/policies";
import { decide, type PlannerInput } from "./planner";

const policy = defaultPolicies().autoscaling;
const base: PlannerInput = {
  role: "decode",
  observed: 0.62,
  replicas: 4,
  gpusInUse: 8,
  policy,
  now: 1_000_000,
  lastChangeAt: null,
  maxWorkers: 32,
};

type Case = [name: string, input: Partial<PlannerInput>, action: string, after: number, reason: string];

const cases: Case[] = [
  ["between thresholds", {}, "none", 4, "no change: decode KV utilization 0.62 between 0.50 and 0.90"],
  ["above scale-up", { observed: 0.95 }, "scale_up", 5, "scale up: decode KV utilization 0.95 above 0.90"],
  ["below scale-down", { observed: 0.31 }, "scale_down", 3, "scale down: decode KV utilization 0.31 below 0.50"],
  [
    "above but at max",
    { observed: 0.95, replicas: 8 },
    "none",
    8,
    "no change: decode KV utilization 0.95 above 0.90 but already at max_replicas 8",
  ],
  [
    "above but GPU budget used",
    { observed: 0.95, gpusInUse: 16 },
    "none",
    4,
    "no change: decode KV utilization 0.95 above 0.90 but the GPU budget 16 is used",
  ],
  [
    "below but at min",
    { observed: 0.1, replicas: 1 },
    "none",
    1,
    "no change: decode KV utilization 0.10 below 0.50 but already at min_replicas 1",
  ],
  [
    "within the grace period",
    { observed: 0.95, lastChangeAt: 1_000_000 - 20_000 },
    "none",
    4,
    "no change: decode KV utilization 0.95; grace period after the last change (40 s of 60 s left)",
  ],
  [
    "after the grace period",
    { observed: 0.95, lastChangeAt: 1_000_000 - 60_000 },
    "scale_up",
    5,
    "scale up: decode KV utilization 0.95 above 0.90",
  ],
  ["no samples", { observed: null }, "none", 4, "no change: no samples in this interval"],
  [
    "just below the threshold is not printed as equal to it",
    { observed: 0.4996 },
    "scale_down",
    3,
    "scale down: decode KV utilization 0.4996 below 0.50",
  ],
  [
    "just above the threshold",
    { observed: 0.9004 },
    "scale_up",
    5,
    "scale up: decode KV utilization 0.9004 above 0.90",
  ],
  ["prefill queue above", { role: "prefill", observed: 0.7 }, "scale_up", 5, "scale up: prefill queue 0.70 above 0.50"],
  [
    "prefill queue below",
    { role: "prefill", observed: 0.1 },
    "scale_down",
    3,
    "scale down: prefill queue 0.10 below 0.20",
  ],
  [
    "aggregated uses its own thresholds",
    { role: "aggregated", observed: 0.93, replicas: 10 },
    "scale_up",
    11,
    "scale up: KV utilization 0.93 above 0.90",
  ],
  ["below min replicas", { replicas: 0, observed: 0.6 }, "scale_up", 1, "scale up: 0 replicas below min_replicas 1"],
  ["above max replicas", { replicas: 9 }, "scale_down", 8, "scale down: 9 replicas above max_replicas 8"],
];

describe("decide", () => {
  it.each(cases)("%s", (_name, input, action, after, reason) => {
    const d = decide({ ...base, ...input });
    expect(d.action).toBe(action);
    expect(d.replicas_after).toBe(after);
    expect(d.reason).toBe(reason);
  });

  it("reports the metric and thresholds it compared", () => {
    expect(decide({ ...base, role: "prefill", observed: 0.3 })).toMatchObject({
      metric: "prefill_queue",
      scale_up_threshold: 0.5,
      scale_down_threshold: 0.2,
      observed: 0.3,
    });
    expect(decide(base)).toMatchObject({
      metric: "decode_kv_utilization",
      scale_up_threshold: 0.9,
      scale_down_threshold: 0.5,
      replicas_before: 4,
    });
  });

  it("keeps the last worker of a role even when min_replicas is 0", () => {
    const zeroMin = { ...policy, decode: { ...policy.decode, min_replicas: 0 } };
    expect(decide({ ...base, policy: zeroMin, replicas: 1, observed: 0.1 }).action).toBe("none");
  });
});
