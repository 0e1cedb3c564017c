import { describe, expect, it } from "vitest";
import { splitWorkerKey, workerKey } from "./worker-key";

describe("worker keys", () => {
  it.each([
    // cluster, id, key
    [undefined, "w1", "w1"],
    ["default", "w1", "w1"],
    ["staging", "w1", "staging/w1"],
    ["prod.eu-1", "10.0.0.7:8000", "prod.eu-1/10.0.0.7:8000"],
    ["staging", "pod/abc", "staging/pod/abc"],
    // A default-cluster id with a '/' names its cluster, or it would read as worker "w1" of cluster "staging".
    [undefined, "staging/w1", "default/staging/w1"],
    ["default", "a/b", "default/a/b"],
  ])("cluster %s, id %s → %s", (cluster, id, key) => {
    expect(workerKey(cluster, id)).toBe(key);
    expect(splitWorkerKey(key)).toEqual({ cluster: cluster ?? "default", id });
  });

  it("gives no two (cluster, id) pairs the same key", () => {
    const clusters = [undefined, "default", "staging", "a", "a.b"];
    const ids = ["w1", "a/w1", "staging/w1", "default/w1", "w1/", "/w1"];
    const seen = new Map<string, string>();
    for (const c of clusters)
      for (const id of ids) {
        const pair = `${c ?? "default"} ${id}`;
        const key = workerKey(c, id);
        const other = seen.get(key);
        if (other !== undefined) expect(other).toBe(pair);
        seen.set(key, pair);
      }
  });
});
