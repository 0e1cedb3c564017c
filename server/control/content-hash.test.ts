import { describe, expect, it } from "vitest";
import { canonicalJson, policyContentHash } from "./content-hash";

describe("policy content hash", () => {
  it.each([
    [{ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } }, '{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}'],
    [[], "[]"],
    ["x", '"x"'],
    [{ skipped: undefined, kept: 0 }, '{"kept":0}'],
  ])("canonical JSON of %j", (value, expected) => expect(canonicalJson(value)).toBe(expected));

  it("is the same for the same content in any key order and differs by kind and content", () => {
    const a = policyContentHash("routing", { temperature: 0.5, overlap_credit: 1 });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(policyContentHash("routing", { overlap_credit: 1, temperature: 0.5 })).toBe(a);
    expect(policyContentHash("frontend", { overlap_credit: 1, temperature: 0.5 })).not.toBe(a);
    expect(policyContentHash("routing", { overlap_credit: 1, temperature: 0.6 })).not.toBe(a);
  });
});
