import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_RULES, MAX_RULES, renderSummary, unknownScopes, validateAlertRules } from "./rules";

const ok = { name: "preempt", metric: "preemptions_per_minute", threshold: 5, summary: "{{worker}}: {{value}}/min" };

describe("validateAlertRules", () => {
  it("fills in the defaults: off, unscoped, a 5-minute window, held 60 s, a warning", () => {
    const v = validateAlertRules({ rules: [ok] });
    expect(v).toEqual({
      ok: true,
      document: {
        rules: [
          {
            ...ok,
            enabled: false,
            scope: { cluster: null, model: null, worker: null },
            window_seconds: 300,
            for_seconds: 60,
            severity: "warning",
          },
        ],
      },
    });
  });

  it("ships every default rule valid and off", () => {
    const v = validateAlertRules(DEFAULT_ALERT_RULES);
    expect(v.ok).toBe(true);
    expect(DEFAULT_ALERT_RULES.rules.every((r) => !r.enabled)).toBe(true);
    expect(DEFAULT_ALERT_RULES.rules.map((r) => r.metric).sort()).toEqual(
      [
        "attribution_lag_minutes",
        "finding",
        "guard_rollback",
        "hit_rate",
        "kv_utilization",
        "preemptions_per_minute",
        "source_not_ok",
        "target_not_in_sync",
        "ttft_p95_ms",
      ].sort(),
    );
  });

  it.each([
    [{ ...ok, metric: "queue_depth" }, "rules.0.metric", "must be one of hit_rate"],
    [{ ...ok, threshold: null }, "rules.0.threshold", "needs a threshold"],
    [{ ...ok, metric: "source_not_ok" }, "rules.0.threshold", "takes no threshold"],
    [{ ...ok, metric: "hit_rate", threshold: 30 }, "rules.0.threshold", "is a ratio"],
    [{ ...ok, threshold: -1 }, "rules.0.threshold", "must be 0 or more"],
    [{ ...ok, scope: { model: "m" } }, "rules.0.scope.model", "not scoped by model (it takes cluster, worker)"],
    [
      { ...ok, metric: "attribution_lag_minutes", scope: { cluster: "a" } },
      "rules.0.scope.cluster",
      "not scoped by cluster",
    ],
    [{ ...ok, scope: { cluster: "../x" } }, "rules.0.scope.cluster", "must be 1 to 64"],
    [{ ...ok, scope: { pod: "x" } }, "rules.0.scope.pod", "unknown field"],
    [{ ...ok, for_seconds: 1.5 }, "rules.0.for_seconds", "whole number"],
    [{ ...ok, for_seconds: 90_000 }, "rules.0.for_seconds", "at most a day"],
    [{ ...ok, window_seconds: 10 }, "rules.0.window_seconds", "at least 60"],
    [{ ...ok, severity: "page" }, "rules.0.severity", "must be one of critical"],
    [{ ...ok, summary: "{{wroker}} is hot" }, "rules.0.summary", "{{wroker}} is not a variable"],
    [{ ...ok, summary: "" }, "rules.0.summary", "must not be empty"],
    [{ ...ok, name: "Bad Name" }, "rules.0.name", "lower-case"],
    [{ ...ok, colour: "red" }, "rules.0.colour", "unknown field"],
  ])("refuses %j at %s", (r, path, message) => {
    const v = validateAlertRules({ rules: [r] });
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.errors.find((e) => e.path === path)?.message).toContain(message);
  });

  it("refuses a name used twice and more than the rules allowed", () => {
    const twice = validateAlertRules({ rules: [ok, ok] });
    expect(twice.ok || twice.errors).toEqual([{ path: "rules.1.name", message: "preempt is used by an earlier rule" }]);
    const many = validateAlertRules({
      rules: Array.from({ length: MAX_RULES + 1 }, (_, i) => ({ ...ok, name: `r${i}` })),
    });
    expect(many.ok || many.errors[0]).toEqual({ path: "rules", message: `at most ${MAX_RULES} rules` });
  });
});

describe("unknownScopes", () => {
  it("names each scope field that nothing has reported, at its path", () => {
    const v = validateAlertRules({
      rules: [
        { ...ok, scope: { cluster: "prod", worker: "w9" } },
        { ...ok, name: "b", metric: "hit_rate", threshold: 0.3, scope: { model: "m1" } },
      ],
    });
    if (!v.ok) throw new Error("invalid");
    expect(unknownScopes(v.document, { clusters: ["prod"], models: ["m2"], workers: ["prod/w1"] })).toEqual([
      { path: "rules.0.scope.worker", message: 'no worker "w9" has reported to Switchyard' },
      { path: "rules.1.scope.model", message: 'no model "m1" has reported to Switchyard' },
    ]);
  });
});

describe("renderSummary", () => {
  it.each([
    ["{{worker}} preempts {{value}}/min", { worker: "w1", value: "7" }, "w1 preempts 7/min"],
    ["{{ cluster }} {{model}}", { cluster: "prod" }, "prod —"],
    ["no variables", {}, "no variables"],
  ])("%s", (t, vars, want) => expect(renderSummary(t, vars)).toBe(want));
});
