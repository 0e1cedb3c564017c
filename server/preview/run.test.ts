import { describe, expect, it } from "vitest";
import { defaultPolicies } from "../../lib/policies/policies";
import { parseWorkloadTrace } from "../sim/workload-trace";
import { mooncakeRequests, turnsOfRequests } from "./mooncake";
import { runPreview } from "./run";
import type { ReplayInput } from "./types";

const T0 = 1_764_400_000_000;
const BS = 16;

/**
 * A plain LRU over prefix-chained blocks: a request hits its longest cached prefix, then holds its prompt's blocks (one
 * output token comes from the prefill pass: no decode block); they are released tail first (vLLM's order), so a prefix
 * outlives its continuation.
 */
function lruHitRate(requests: { ids: number[]; input: number }[], capacity: number): number {
  const cache = new Map<string, number>();
  let hit = 0;
  let query = 0;
  requests.forEach((r, t) => {
    const keys = r.ids.slice(0, Math.floor(r.input / BS)).map((_, i) => r.ids.slice(0, i + 1).join(","));
    let n = 0;
    while (n < keys.length && cache.has(keys[n]!)) n++;
    hit += n * BS;
    query += r.input;
    const mine = new Set(keys);
    const fresh = keys.filter((k) => !cache.has(k)).length;
    while (cache.size + fresh > capacity) {
      let oldest: string | null = null;
      for (const [k, at] of cache) if (!mine.has(k) && (oldest === null || at < cache.get(oldest)!)) oldest = k;
      if (oldest === null) break;
      cache.delete(oldest);
    }
    keys.forEach((k, i) => cache.set(k, t * 1000 + keys.length - i));
  });
  return hit / query;
}

function inputOf(lines: string[], to: number): ReplayInput {
  const parsed = parseWorkloadTrace(lines.join("\n"), "trace.jsonl", BS);
  if (!parsed.ok) throw new Error(parsed.error);
  const events = mooncakeRequests(parsed.entries, { startMs: T0, blockSize: BS, source: "test" });
  const baseline = defaultPolicies();
  baseline.retention = { ...baseline.retention, rules: [] };
  return {
    from: T0,
    to,
    turns: turnsOfRequests(events, T0),
    workers: [],
    continuing: [],
    baseline,
    baselineNotes: [],
    firstRuns: [],
    imported: true,
  };
}

describe("preview replay of a Mooncake trace on one worker", () => {
  it("matches a plain LRU computed independently", () => {
    // Three shared prefixes of different lengths and a unique tail per request, one request every 20 s.
    const prefixes = [
      [1, 2, 3, 4, 5, 6],
      [10, 11, 12, 13],
      [20, 21, 22, 23, 24, 25, 26, 27],
    ];
    const pick = [0, 1, 0, 2, 1, 2, 0, 0, 2, 1, 1, 0, 2, 2, 0, 1, 0, 2, 1, 0, 2, 0, 1, 1];
    const requests = pick.map((p, i) => ({
      ids: [...prefixes[p]!, 1000 + i, 2000 + i],
      input: (prefixes[p]!.length + 2) * BS,
    }));
    const lines = requests.map((r, i) =>
      JSON.stringify({ timestamp: i * 20_000, input_length: r.input, output_length: 1, hash_ids: r.ids }),
    );
    const input = inputOf(lines, T0 + pick.length * 20_000);
    for (const capacity of [12, 18, 40]) {
      const result = runPreview(input, "routing", input.baseline.routing, {
        workers: 1,
        kv_total_blocks: capacity,
        block_size: BS,
      });
      expect(result.baseline.requests).toBe(pick.length);
      expect(result.baseline.hit_rate).toBeCloseTo(lruHitRate(requests, capacity), 6);
      expect(result.candidate.hit_rate).toBe(result.baseline.hit_rate);
      expect(result.measured.hit_rate).toBeNull();
      expect(result.assumptions.join(" ")).toMatch(/cluster override/);
    }
  });
});
