import { describe, expect, it } from "vitest";
import { policyScope, policyScopeName, scopeLabel, scopeParts, scopeProblem } from "./policy-scope";

describe("policy scopes", () => {
  it.each([
    ["staging", { cluster: "staging", model: null }, "staging"],
    ["production@gpt-oss-120b", { cluster: "production", model: "gpt-oss-120b" }, "production · gpt-oss-120b"],
    // A cluster name has no '@': the first one splits, and a model may carry more.
    [
      "eu@Qwen/Qwen3-Coder:30B@fp8",
      { cluster: "eu", model: "Qwen/Qwen3-Coder:30B@fp8" },
      "eu · Qwen/Qwen3-Coder:30B@fp8",
    ],
  ])("reads %s", (scope, parts, label) => {
    expect(scopeProblem(scope)).toBeNull();
    expect(scopeParts(scope)).toEqual(parts);
    expect(policyScope(parts.cluster, parts.model)).toBe(scope);
    expect(scopeLabel(scope)).toBe(label);
    expect(policyScopeName.parse(scope)).toBe(scope);
  });

  it.each([
    ["", "the cluster must be"],
    ["prod eu", "the cluster must be"],
    ["-prod@m", "the cluster must be"],
    ["prod@", "the model after '@' must be"],
    ["prod@two words", "the model after '@' must be"],
    [`prod@${"m".repeat(257)}`, "the model after '@' must be"],
    [`prod@caf\u00e9`, "the model after '@' must be"],
  ])("refuses %j: %s", (scope, problem) => {
    expect(scopeProblem(scope)).toContain(problem);
    const parsed = policyScopeName.safeParse(scope);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain("not a cluster or cluster@model");
  });

  it("writes no model as the cluster alone", () => {
    expect(policyScope("staging", null)).toBe("staging");
    expect(policyScope("staging", "")).toBe("staging");
  });
});
