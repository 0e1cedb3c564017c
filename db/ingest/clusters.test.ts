import { describe, expect, it } from "vitest";
import { clusterId, clusterProblem, DEFAULT_CLUSTER } from "./clusters";

describe("a cluster's compact id", () => {
  it("is 0 for the default cluster and for events naming none", () => {
    expect(clusterId(undefined)).toBe(0);
    expect(clusterId(DEFAULT_CLUSTER)).toBe(0);
  });

  it("is a positive 31-bit integer, the same every time, different for nearby names", () => {
    const names = ["prod", "staging", "prod-eu", "prod-us", "Prod", "a", "b", "c".repeat(64), "default2"];
    const ids = names.map(clusterId);
    for (const id of ids) expect(Number.isInteger(id) && id > 0 && id < 2 ** 31).toBe(true);
    expect(new Set(ids).size).toBe(names.length);
    expect(names.map(clusterId)).toEqual(ids);
  });
});

describe("whether a cluster's events can be stored", () => {
  const cases: [string, string | null, number, string | null][] = [
    // [name, the name stored under its id, clusters stored, problem fragment or null]
    ["prod", "prod", 1024, null],
    ["prod", null, 1, null],
    ["prod", null, 1023, null],
    ["prod", null, 1024, "already 1,024 clusters"],
    ["prod", "qa-7", 2, 'cannot be told apart from the stored cluster "qa-7"'],
  ];
  it.each(cases)("%s (stored %s, %i clusters)", (name, stored, count, fragment) => {
    const p = clusterProblem(name, stored, count, 1024);
    if (fragment === null) expect(p).toBeNull();
    else expect(p).toContain(fragment);
  });
});
