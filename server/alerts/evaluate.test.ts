import { describe, expect, it } from "vitest";
import { validateAlertRules, type AlertRule } from "../../lib/alerts/rules";
import { evaluateRule, MAX_SERIES_PER_RULE, trips, type AlertState, type Observation } from "./evaluate";

function ruleOf(r: Record<string, unknown>): AlertRule {
  const v = validateAlertRules({ rules: [r] });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.document.rules[0]!;
}

const preempt = ruleOf({
  name: "preempt",
  enabled: true,
  metric: "preemptions_per_minute",
  threshold: 5,
  for_seconds: 30,
  summary: "{{worker}} preempts {{value}}/min (over {{threshold}})",
});
const obs = (worker: string, value: number | null): Observation => ({
  key: `worker=${worker}`,
  labels: { cluster: "default", worker },
  value,
  link: `/workers/${worker}`,
});

/** Run evaluations at 15 s steps over a list of (worker → value) figures; returns each step's transitions. */
function run(rule: AlertRule, steps: Record<string, number | null>[]): string[][] {
  let kept: AlertState[] = [];
  return steps.map((s, i) => {
    const e = evaluateRule(
      rule,
      Object.entries(s).map(([w, v]) => obs(w, v)),
      kept,
      i * 15_000,
    );
    kept = e.states;
    return e.transitions.map((t) => `${t.kind}:${t.alert.labels.worker}`);
  });
}

describe("evaluateRule", () => {
  it.each([
    [
      "fires once the condition has held for_seconds, and resolves when it stops",
      [{ w1: 9 }, { w1: 9 }, { w1: 9 }, { w1: 9 }, { w1: 2 }],
      [[], [], ["firing:w1"], [], ["resolved:w1"]],
    ],
    [
      "a flap shorter than for_seconds sends nothing",
      [{ w1: 9 }, { w1: 2 }, { w1: 9 }, { w1: 9 }, { w1: 2 }],
      [[], [], [], [], []],
    ],
    [
      "no data neither trips nor holds",
      [{ w1: 9 }, { w1: null }, { w1: 9 }, { w1: 9 }, { w1: 9 }],
      [[], [], [], [], ["firing:w1"]],
    ],
    [
      "each series on its own",
      [
        { w1: 9, w2: 1 },
        { w1: 9, w2: 9 },
        { w1: 9, w2: 9 },
        { w1: 1, w2: 9 },
      ],
      [[], [], ["firing:w1"], ["resolved:w1", "firing:w2"]],
    ],
    [
      "a firing series that goes away resolves",
      [{ w1: 9 }, { w1: 9 }, { w1: 9 }, {}],
      [[], [], ["firing:w1"], ["resolved:w1"]],
    ],
    ["a value at the threshold does not trip", [{ w1: 5 }, { w1: 5 }, { w1: 5 }], [[], [], []]],
  ])("%s", (_, steps, want) => {
    expect(run(preempt, steps as Record<string, number | null>[])).toEqual(want);
  });

  it("fires at once with for_seconds 0, and renders the summary with the figure", () => {
    const e = evaluateRule({ ...preempt, for_seconds: 0 }, [obs("w1", 7.25)], [], 1_000);
    expect(e.transitions.map((t) => t.kind)).toEqual(["firing"]);
    expect(e.states[0]).toMatchObject({
      state: "firing",
      activeAt: 1_000,
      firedAt: 1_000,
      summary: "w1 preempts 7.3/min (over 5)",
      link: "/workers/w1",
    });
  });

  it("goes on from stored states: a new leader sends no second page for what is already firing", () => {
    const first = evaluateRule(preempt, [obs("w1", 9)], [], 0);
    const firing = evaluateRule(preempt, [obs("w1", 9)], first.states, 30_000);
    expect(firing.transitions).toHaveLength(1);
    const stored = JSON.parse(JSON.stringify(firing.states)) as AlertState[];
    const next = evaluateRule(preempt, [obs("w1", 9)], stored, 45_000);
    expect(next.transitions).toEqual([]);
    expect(next.states[0]).toMatchObject({ state: "firing", firedAt: 30_000, activeAt: 0 });
  });

  it("a disabled rule resolves what was firing and keeps nothing", () => {
    const firing = evaluateRule({ ...preempt, for_seconds: 0 }, [obs("w1", 9)], [], 0);
    const off = evaluateRule({ ...preempt, enabled: false }, [obs("w1", 9)], firing.states, 15_000);
    expect(off.states).toEqual([]);
    expect(off.transitions.map((t) => t.kind)).toEqual(["resolved"]);
  });

  it("reads hit_rate as below its threshold and event metrics by presence", () => {
    const low = ruleOf({ name: "low", enabled: true, metric: "hit_rate", threshold: 0.3, summary: "{{value}}" });
    expect(trips(low, obs("a", 0.2))).toBe(true);
    expect(trips(low, obs("a", 0.3))).toBe(false);
    const src = ruleOf({ name: "src", enabled: true, metric: "source_not_ok", summary: "{{source}}" });
    expect(trips(src, { ...obs("a", null), present: true })).toBe(true);
    expect(trips(src, { ...obs("a", 1) })).toBe(false);
    expect(evaluateRule({ ...low, for_seconds: 0 }, [obs("a", 0.123)], [], 0).states[0]!.summary).toBe("12.3 %");
  });

  it(`keeps at most ${MAX_SERIES_PER_RULE} series of a rule and counts the rest`, () => {
    const many = Array.from({ length: MAX_SERIES_PER_RULE + 5 }, (_, i) => obs(`w${i}`, 9));
    const e = evaluateRule({ ...preempt, for_seconds: 0 }, many, [], 0);
    expect(e.states).toHaveLength(MAX_SERIES_PER_RULE);
    expect(e.dropped).toBe(5);
  });
});
