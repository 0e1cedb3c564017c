import { describe, expect, it } from "vitest";
import { ackedVersion, checkVersion, rejectionMessage, type PolicyState } from "./policy-versions";

const ROUTING = { overlap_credit: 2 };
const applied = (version: number, document: unknown = null) => ({ version, document, applied_at: 0 }) as PolicyState;

describe("checkVersion", () => {
  it("applies a newer version's validated document", () => {
    const r = checkVersion("routing", 3, ROUTING, [], applied(2));
    expect(r.ok).toBe(true);
    expect(r.ok && (r.document as { overlap_credit: number; temperature: number })).toMatchObject({
      overlap_credit: 2,
      temperature: 0,
    });
  });

  it("applies the applied version again with the same document", () => {
    const first = checkVersion("routing", 1, ROUTING, [], applied(0));
    expect(first.ok).toBe(true);
    const again = checkVersion("routing", 1, ROUTING, [], applied(1, first.ok ? first.document : null));
    expect(again.ok).toBe(true);
  });

  it.each<[string, number, unknown, number, RegExp]>([
    ["an older version", 1, ROUTING, 2, /^is older than the applied version 2$/],
    ["a negative version", -1, ROUTING, 0, /^must be an integer between 0 and 1000000000$/],
    ["a fractional version", 1.5, ROUTING, 0, /^must be an integer/],
    ["a version past 10^9", 1e9 + 1, ROUTING, 0, /^must be an integer/],
    ["the applied number with another document", 2, { overlap_credit: 3 }, 2, /already applied with a different/],
  ])("refuses %s, saying so on the version", (_, version, document, current, message) => {
    const r = checkVersion("routing", version, document, [], applied(current));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]).toMatchObject({ path: "version", message: expect.stringMatching(message) });
  });

  it("refuses an invalid document field by field, and errors found before without validating", () => {
    const bad = checkVersion("routing", 5, { overlap_credit: "x" }, [], applied(0));
    expect(!bad.ok && bad.errors.map((e) => e.path)).toEqual(["overlap_credit"]);
    const refused = checkVersion("routing", 5, ROUTING, [{ path: "", message: "too large" }], applied(0));
    expect(!refused.ok && refused.errors).toEqual([{ path: "", message: "too large" }]);
  });
});

describe("a rejection's ack", () => {
  it("names the version only when it is one, and says the errors in at most 2,048 characters", () => {
    expect([ackedVersion(7), ackedVersion(-1), ackedVersion(0.5), ackedVersion(2e9)]).toEqual([7, 0, 0, 0]);
    expect(
      rejectionMessage([
        { path: "", message: "bad" },
        { path: "a.b", message: "worse" },
      ]),
    ).toBe("document: bad; a.b: worse");
    expect(rejectionMessage([{ path: "x", message: "y".repeat(5000) }])).toHaveLength(2048);
  });
});
