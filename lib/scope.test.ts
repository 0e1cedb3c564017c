import { describe, expect, it } from "vitest";
import { describeScope, inScope, parseScope, scopeQuery } from "./scope";

describe("page scope", () => {
  it.each([
    ["", {}, null],
    ["cluster=staging", { cluster: "staging" }, null],
    ["cluster=staging&model=gpt-oss-120b", { cluster: "staging", model: "gpt-oss-120b" }, null],
    ["model=a%2Fb", { model: "a/b" }, null],
    ["cluster=", {}, null],
    ["cluster=prod%20eu", {}, 'cluster "prod eu" is not a cluster name'],
    ["cluster=a%2Fb&model=m", { model: "m" }, 'cluster "a/b" is not a cluster name'],
    [`model=${"m".repeat(257)}`, {}, "model is longer than 256 characters"],
  ])("?%s → %j", (query, scope, problem) => {
    const parsed = parseScope(new URLSearchParams(query));
    expect(parsed.scope).toEqual(scope);
    if (problem === null) expect(parsed.problem).toBeNull();
    else expect(parsed.problem).toContain(problem);
  });

  it("round-trips through the URL", () => {
    for (const scope of [{}, { cluster: "staging" }, { model: "a b/c" }, { cluster: "p", model: "m" }])
      expect(parseScope(new URLSearchParams(scopeQuery(scope))).scope).toEqual(scope);
  });

  it.each([
    // key, model, scope, in
    ["w1", "m", {}, true],
    ["w1", "m", { cluster: "default" }, true],
    ["w1", "m", { cluster: "staging" }, false],
    ["staging/w1", "m", { cluster: "staging" }, true],
    ["staging/w1", "m", { cluster: "staging", model: "m" }, true],
    ["staging/w1", "m", { cluster: "staging", model: "other" }, false],
    ["staging/w1", null, { model: "m" }, false],
    ["default/a/b", "m", { cluster: "default" }, true],
    ["default/a/b", "m", { cluster: "a" }, false],
  ])("worker %s (%s) in %j: %s", (key, model, scope, want) => {
    expect(inScope(key, model, scope)).toBe(want);
  });

  it("describes a scope", () => {
    expect(describeScope({})).toBe("all clusters");
    expect(describeScope({ cluster: "staging", model: "m" })).toBe("cluster staging, model m");
  });
});
