import { describe, expect, it } from "vitest";
import { describeAudit } from "./audit";

describe("describeAudit", () => {
  it.each<[string, unknown, string]>([
    ["publish", { comment: "strip it", changes: 1 }, "1 field changed · “strip it”"],
    ["publish", { comment: "", changes: 3 }, "3 fields changed"],
    [
      "rollback",
      { comment: "back", changes: 2, from: 3, to: 1 },
      "content of v1 on top of v3 · 2 fields changed · “back”",
    ],
    ["target.upsert", { id: "sim", adapter: "sim", enabled: true }, "target sim (sim)"],
    [
      "target.upsert",
      { id: "fe", adapter: "dynamo-busy-threshold", enabled: false },
      "target fe (dynamo-busy-threshold) · disabled",
    ],
    ["target.remove", { id: "sim" }, "target sim"],
    [
      "guard.add",
      { ttftP95RisePct: null, hitRateDropPoints: 5, windowMinutes: 10 },
      "Hit rate may not fall more than 5 points within 10 min",
    ],
    [
      "guard.tripped",
      { reason: "TTFT p95 +34%", message: "tripped after 3 of 10 min: TTFT p95 +34%", rollbackVersion: 8, to: 6 },
      "rolled back by guard: TTFT p95 +34% (as v8)",
    ],
    [
      "guard.passed",
      { message: "passed after 10 min: TTFT p95 +2% (limit +20%)" },
      "passed after 10 min: TTFT p95 +2% (limit +20%)",
    ],
    ["publish", null, "—"],
    ["publish", "garbage", "—"],
  ])("%s %j", (action, detail, out) => expect(describeAudit(action, detail)).toBe(out));
});
