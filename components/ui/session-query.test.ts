import { describe, expect, it } from "vitest";
import { DEFAULT_SORT, EMPTY_FILTERS, parseSessionQuery, sessionQueryString } from "./session-query";

const parse = (q: string) => parseSessionQuery(new URLSearchParams(q));

describe("sessions list query in the URL", () => {
  it.each([
    ["nothing: no filters, newest activity first", "", {}, DEFAULT_SORT],
    [
      "filters and sort",
      "harness=codex&status=error&min_cached=40&q=abc&subagents=yes&sort=turns&dir=asc",
      { harness: "codex", status: "error", minHit: "40", search: "abc", subagents: "yes" },
      { key: "turns", dir: "asc" },
    ],
    ["a sort key alone sorts descending", "sort=toolWaitMs", {}, { key: "toolWaitMs", dir: "desc" }],
    [
      "unknown values fall back to the defaults",
      "status=gone&subagents=maybe&min_turns=lots&sort=__proto__&dir=up",
      {},
      DEFAULT_SORT,
    ],
    ["a column name that is not a sort key is refused", "sort=hasOwnProperty", {}, DEFAULT_SORT],
  ])("%s", (_name, q, filters, sort) => {
    expect(parse(q)).toEqual({ filters: { ...EMPTY_FILTERS, ...filters }, sort });
  });

  it("caps a long value", () => {
    expect(parse(`q=${"x".repeat(5_000)}`).filters.search).toHaveLength(128);
  });

  it.each([
    ["defaults leave the URL as it was (the range stays)", "range=1h", EMPTY_FILTERS, DEFAULT_SORT, "range=1h"],
    [
      "filters and sort are added; empty ones removed",
      "range=1h&worker=w9",
      { ...EMPTY_FILTERS, harness: "codex", search: " a b " },
      { key: "turns", dir: "asc" } as const,
      "range=1h&harness=codex&q=a+b&sort=turns&dir=asc",
    ],
    ["back to the default sort drops it", "sort=turns&dir=asc", EMPTY_FILTERS, DEFAULT_SORT, ""],
  ])("%s", (_name, base, filters, sort, want) => {
    expect(sessionQueryString(base, filters, sort)).toBe(want);
  });

  it("round-trips", () => {
    const f = {
      ...EMPTY_FILTERS,
      harness: "claude_code",
      sessionType: "coding",
      status: "active" as const,
      minTurns: "3",
      minHit: "10",
      maxHit: "90",
      subagents: "no" as const,
      workerId: "w1",
      search: "s-1",
    };
    const sort = { key: "cachedShare" as const, dir: "asc" as const };
    expect(parse(sessionQueryString("", f, sort))).toEqual({ filters: f, sort });
  });
});
