import { describe, expect, it } from "vitest";
import { defaultPolicies } from "@/lib/policies/policies";
import { conflictDetails, errorsByPath, formatValue, rebaseDraft, serverFieldErrors } from "./drafts";

const T0 = 1_764_417_600_000;

describe("rebaseDraft", () => {
  const base = defaultPolicies().frontend;
  const withLimit = (limit: number) => ({ ...base, tool_output_budget: { ...base.tool_output_budget, limit } });

  it.each<[string, unknown, unknown, unknown, string[]]>([
    [
      "keeps both sides' changes to different fields",
      withLimit(2000),
      { ...base, strip_anthropic_preamble: true },
      { ...withLimit(2000), strip_anthropic_preamble: true },
      [],
    ],
    [
      "lets the draft win where both changed a field",
      withLimit(2000),
      withLimit(3000),
      withLimit(2000),
      ["tool_output_budget.limit"],
    ],
    ["an unchanged draft becomes the latest", base, withLimit(3000), withLimit(3000), []],
  ])("%s", (_name, draft, latest, out, overlaps) => {
    expect(rebaseDraft(base, draft, latest)).toEqual({ document: out, overlaps });
  });

  it("keeps the draft whole when the other side added a rule", () => {
    const r = defaultPolicies().retention;
    const draft = { ...r, default: { ...r.default, priority: 10 } };
    const latest = { ...r, rules: [...r.rules, { ...r.rules[0]!, name: "other" }] };
    expect(rebaseDraft(r, draft, latest).document).toEqual(draft);
  });

  it("writes a draft's rule edit into the latest when no rule was added or removed", () => {
    const r = defaultPolicies().retention;
    const draft = { ...r, rules: [{ ...r.rules[0]!, priority: 70 }] };
    const latest = { ...r, default: { ...r.default, ttl_seconds: 60 } };
    expect(rebaseDraft(r, draft, latest).document).toEqual({ ...latest, rules: [{ ...r.rules[0]!, priority: 70 }] });
  });

  it("does not change its inputs", () => {
    const draft = withLimit(5);
    const latest = { ...base, strip_anthropic_preamble: true };
    rebaseDraft(base, draft, latest);
    expect(latest.tool_output_budget.limit).toBe(10_000);
  });
});

describe("serverFieldErrors", () => {
  it.each<[string, unknown, { path: string; message: string }[]]>([
    [
      "invalid-document details",
      { code: "BAD_REQUEST", details: { errors: [{ path: "rules.0.ttl_seconds", message: "must be positive" }] } },
      [{ path: "rules.0.ttl_seconds", message: "must be positive" }],
    ],
    [
      "zod issues of the input under document.",
      {
        code: "BAD_REQUEST",
        issues: [
          { path: "document.decode.kv_scale_down", message: "too high" },
          { path: "comment", message: "too long" },
        ],
      },
      [{ path: "decode.kv_scale_down", message: "too high" }],
    ],
    ["no data", null, []],
    ["details without errors", { code: "CONFLICT", details: { latest: 2 } }, []],
  ])("%s", (_n, data, out) => {
    expect(serverFieldErrors(data as never)).toEqual(out);
  });
});

describe("conflictDetails", () => {
  it.each<[string, unknown, unknown]>([
    [
      "a conflict",
      { code: "CONFLICT", details: { latest: 3, base: 2, diff: [{ path: "a", before: 1, after: 2 }] } },
      { latest: 3, base: 2, diff: [{ path: "a", before: 1, after: 2 }] },
    ],
    [
      "a first publish raced",
      { code: "CONFLICT", details: { latest: 1, base: null, diff: [] } },
      { latest: 1, base: null, diff: [] },
    ],
    ["another code", { code: "BAD_REQUEST", details: { latest: 3, diff: [] } }, null],
    ["malformed details", { code: "CONFLICT", details: { latest: "3" } }, null],
  ])("%s", (_n, data, out) => {
    expect(conflictDetails(data as never)).toEqual(out);
  });
});

describe("formatValue", () => {
  it.each<[unknown, string]>([
    [null, "none"],
    [undefined, "—"],
    ["tokens", '"tokens"'],
    [0.5, "0.5"],
    [true, "true"],
    [{ a: 1 }, '{"a":1}'],
  ])("formatValue(%j)", (v, out) => expect(formatValue(v)).toBe(out));
});

describe("errorsByPath", () => {
  it("groups reasons by path in order", () => {
    const m = errorsByPath([
      { path: "a", message: "1" },
      { path: "b", message: "2" },
      { path: "a", message: "3" },
    ]);
    expect(m.get("a")?.map((e) => e.message)).toEqual(["1", "3"]);
    expect(m.get("c")).toBeUndefined();
  });
});
