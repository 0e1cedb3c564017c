import { describe, expect, it } from "vitest";
import { guardInput } from "./guard-input";

describe("guard input", () => {
  it.each<[string, unknown, string | null]>([
    ["both limits", { ttftP95RisePct: 20, hitRateDropPoints: 5, windowMinutes: 10 }, null],
    ["one limit, default window", { hitRateDropPoints: 5 }, null],
    ["window 1 and 120 are allowed", { ttftP95RisePct: 5, windowMinutes: 120 }, null],
    ["no limit", { windowMinutes: 10 }, "ttftP95RisePct"],
    ["rise 0", { ttftP95RisePct: 0 }, "ttftP95RisePct"],
    ["negative drop", { hitRateDropPoints: -5 }, "hitRateDropPoints"],
    ["absurd rise", { ttftP95RisePct: 5000 }, "ttftP95RisePct"],
    ["drop over 100 points", { hitRateDropPoints: 150 }, "hitRateDropPoints"],
    ["window 0", { ttftP95RisePct: 20, windowMinutes: 0 }, "windowMinutes"],
    ["window 121", { ttftP95RisePct: 20, windowMinutes: 121 }, "windowMinutes"],
    ["fractional window", { ttftP95RisePct: 20, windowMinutes: 2.5 }, "windowMinutes"],
    ["text", { ttftP95RisePct: "20" }, "ttftP95RisePct"],
    ["unknown field", { ttftP95RisePct: 20, ttft: 1 }, ""],
  ])("%s", (_name, input, errorPath) => {
    const r = guardInput.safeParse(input);
    if (errorPath === null) return expect(r.success).toBe(true);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join("."))).toContain(errorPath);
  });

  it("fills the default window of 10 minutes", () => {
    expect(guardInput.parse({ ttftP95RisePct: 20 })).toEqual({
      ttftP95RisePct: 20,
      hitRateDropPoints: null,
      windowMinutes: 10,
    });
  });
});
