import { describe, expect, it } from "vitest";
import { checkGuardDraft, DEFAULT_GUARD_DRAFT, describeGuard, type GuardDraft } from "./guard-form";

const on = (o: Partial<GuardDraft> = {}): GuardDraft => ({ ...DEFAULT_GUARD_DRAFT, enabled: true, ...o });

describe("guard fields", () => {
  it.each<[string, GuardDraft, object | null, Record<string, RegExp>]>([
    ["off: no guard, no errors", DEFAULT_GUARD_DRAFT, null, {}],
    ["the defaults", on(), { ttftP95RisePct: 20, hitRateDropPoints: 5, windowMinutes: 10 }, {}],
    [
      "hit rate only",
      on({ ttftOn: false, window: " 15 " }),
      { ttftP95RisePct: null, hitRateDropPoints: 5, windowMinutes: 15 },
      {},
    ],
    ["neither check", on({ ttftOn: false, hitOn: false }), null, { ttftP95RisePct: /set a TTFT or a hit-rate limit/ }],
    ["a rise of 0", on({ ttft: "0" }), null, { ttftP95RisePct: /more than 0%/ }],
    ["a negative drop", on({ hit: "-2" }), null, { hitRateDropPoints: /more than 0 points/ }],
    ["an absurd rise", on({ ttft: "20000" }), null, { ttftP95RisePct: /at most 1000%/ }],
    ["an empty window", on({ window: "" }), null, { windowMinutes: /whole number of minutes/ }],
    ["a window of 121", on({ window: "121" }), null, { windowMinutes: /at most 120 minutes/ }],
    ["a window of 0.5", on({ window: "0.5" }), null, { windowMinutes: /whole number|at least 1/ }],
    ["text for a limit", on({ hit: "five" }), null, { hitRateDropPoints: /a number of points/ }],
  ])("%s", (_name, draft, guard, errors) => {
    const r = checkGuardDraft(draft);
    expect(r.guard).toEqual(guard);
    expect(Object.keys(r.errors).sort()).toEqual(Object.keys(errors).sort());
    for (const [field, re] of Object.entries(errors)) expect(r.errors[field as keyof typeof r.errors]).toMatch(re);
  });

  it.each([
    [
      { ttftP95RisePct: 20, hitRateDropPoints: 5, windowMinutes: 10 },
      "TTFT p95 may not rise more than 20% or the hit rate fall more than 5 points within 10 min",
    ],
    [
      { ttftP95RisePct: null, hitRateDropPoints: 5, windowMinutes: 3 },
      "Hit rate may not fall more than 5 points within 3 min",
    ],
    [
      { ttftP95RisePct: 50, hitRateDropPoints: null, windowMinutes: 120 },
      "TTFT p95 may not rise more than 50% within 120 min",
    ],
  ])("describes %j", (g, words) => expect(describeGuard(g)).toBe(words));
});
