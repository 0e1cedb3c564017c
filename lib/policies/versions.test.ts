import { describe, expect, it } from "vitest";
import { defaultPolicies } from "./policies";
import { decidePublish, decideRollback, diffDocuments } from "./versions";

const routing = defaultPolicies().routing;
const v1 = { version: 1, document: routing };
const v2 = { version: 2, document: { ...routing, temperature: 0.5 } };

describe("diffDocuments", () => {
  it.each([
    ["equal documents", routing, structuredClone(routing), []],
    ["a changed leaf", routing, { ...routing, temperature: 0.5 }, [{ path: "temperature", before: 0, after: 0.5 }]],
    [
      "a nested change",
      { busy: { a: null, b: 1 } },
      { busy: { a: 2, b: 1 } },
      [{ path: "busy.a", before: null, after: 2 }],
    ],
    ["an added key", { a: 1 }, { a: 1, b: 2 }, [{ path: "b", before: undefined, after: 2 }]],
    ["a removed key", { a: 1, b: 2 }, { a: 1 }, [{ path: "b", before: 2, after: undefined }]],
    [
      "array items by index",
      { rules: [{ name: "x" }, { name: "y" }] },
      { rules: [{ name: "y" }] },
      [
        { path: "rules.0.name", before: "x", after: "y" },
        { path: "rules.1", before: { name: "y" }, after: undefined },
      ],
    ],
    ["nothing before", null, { a: 1 }, [{ path: "", before: null, after: { a: 1 } }]],
  ])("%s", (_name, before, after, expected) => {
    expect(diffDocuments(before, after)).toEqual(expected);
  });
});

describe("decidePublish", () => {
  it.each([
    ["first version on no base", null, null, { ok: true, version: 1, basedOn: null }],
    ["next version on the latest", 1, v1, { ok: true, version: 2, basedOn: 1 }],
    ["a stale base is a conflict", 1, v2, { ok: false, reason: "conflict", latest: 2, base: 1 }],
    [
      "a null base when versions exist is a conflict",
      null,
      v1,
      { ok: false, reason: "conflict", latest: 1, base: null },
    ],
    ["a base ahead of the latest is a conflict", 3, v2, { ok: false, reason: "conflict", latest: 2, base: 3 }],
  ] as const)("%s", (_name, base, latest, expected) => {
    const baseRecord = base === 1 ? v1 : null;
    expect(decidePublish("routing", { temperature: 2 }, base, latest, baseRecord)).toMatchObject(expected);
  });

  it("fills defaults and diffs against the latest", () => {
    const res = decidePublish("routing", { temperature: 2 }, 2, v2, v2);
    expect(res).toMatchObject({
      ok: true,
      document: { ...routing, temperature: 2 },
      diff: [{ path: "temperature", before: 0.5, after: 2 }],
    });
  });

  it("carries the diff from the base to the latest on conflict", () => {
    const res = decidePublish("routing", { overlap_credit: 3 }, 1, v2, v1);
    expect(res).toEqual({
      ok: false,
      reason: "conflict",
      latest: 2,
      base: 1,
      diff: [{ path: "temperature", before: 0, after: 0.5 }],
    });
  });

  it.each([
    ["autoscaling", { decode: { kv_scale_up: 0.5, kv_scale_down: 0.6 } }, "decode.kv_scale_down"],
    ["routing", { temprature: 1 }, "temprature"],
    ["frontend", { tool_output_budget: { limit: 0 } }, "tool_output_budget.limit"],
    ["retention", { rules: [{ name: "a" }, { name: "a" }] }, "rules.1.name"],
  ] as const)("refuses an invalid %s document before the version check", (kind, doc, path) => {
    const res = decidePublish(kind, doc, 7, null, null);
    expect(res.ok).toBe(false);
    if (!res.ok && res.reason === "invalid") expect(res.errors.map((e) => e.path)).toContain(path);
    else expect.fail("expected invalid");
  });
});

describe("decideRollback", () => {
  it("publishes the earlier content as a new version on top of the latest", () => {
    const res = decideRollback("routing", v1, v2);
    expect(res).toMatchObject({
      ok: true,
      version: 3,
      basedOn: 2,
      document: routing,
      diff: [{ path: "temperature", before: 0.5, after: 0 }],
    });
  });
});
