import { describe, expect, it } from "vitest";
import { decodeAgentHints, decodePolicyVersions, encodeAgentHints, encodePolicyVersions } from "./request-json";

describe("agent_hints and policy_versions stored as arrays", () => {
  it.each([
    { name: "every key", v: { retention: 12, autoscaling: 1, routing: 2, frontend: 3 }, stored: "[12,1,2,3]" },
    { name: "keys out of order, one missing", v: { routing: 2, retention: 3 }, stored: "[3,null,2]" },
    { name: "only the last", v: { frontend: 1_000_000_000 }, stored: "[null,null,null,1000000000]" },
    { name: "an empty object", v: {}, stored: "[]" },
    { name: "undefined values", v: { retention: undefined, autoscaling: 0 }, stored: "[null,0]" },
  ])("policy_versions, $name: $stored", ({ v, stored }) => {
    expect(encodePolicyVersions(v)).toBe(stored);
    expect(JSON.parse(decodePolicyVersions(stored)!)).toEqual(JSON.parse(JSON.stringify(v)));
  });

  it.each([
    { v: { priority: -1000, osl: 0, speculative_prefill: false }, stored: "[-1000,0,false]" },
    { v: { speculative_prefill: true }, stored: "[null,null,true]" },
    { v: { osl: 397, priority: 10 }, stored: "[10,397]" },
  ])("agent_hints $stored", ({ v, stored }) => {
    expect(encodeAgentHints(v)).toBe(stored);
    expect(JSON.parse(decodeAgentHints(stored)!)).toEqual(v);
  });

  it("reads absent values and rows stored as objects before as they are", () => {
    expect(encodePolicyVersions(undefined)).toBeNull();
    expect(decodePolicyVersions(null)).toBeNull();
    const old = '{"retention":0,"autoscaling":0,"routing":0,"frontend":0}';
    expect(decodePolicyVersions(old)).toBe(old);
    expect(decodeAgentHints('{"priority":5}')).toBe('{"priority":5}');
  });

  it.each(["[1,2,3,4,5]", '["x"]x', "[{"])("refuses a stored value it cannot read: %s", (bad) => {
    expect(() => decodePolicyVersions(bad)).toThrow();
  });
});
