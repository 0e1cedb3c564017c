import { describe, expect, it } from "vitest";
import { Rng } from "./prng";
import { chooseWorker, routeCost, type CandidateLoad } from "./router";

const policy = { overlap_credit: 1, prefill_load_scale: 1, temperature: 0 };
const load = (
  worker_id: string,
  prefill_blocks: number,
  overlap_blocks: number,
  decode_blocks: number,
  busy = false,
): CandidateLoad => ({ worker_id, prefill_blocks, overlap_blocks, decode_blocks, busy });

describe("routeCost", () => {
  it("is prefill_load_scale x max(prefill - credit x overlap, 0) + decode", () => {
    expect(routeCost(policy, { prefill_blocks: 10, overlap_blocks: 2, decode_blocks: 10 })).toBe(18);
    expect(
      routeCost(
        { overlap_credit: 2, prefill_load_scale: 3 },
        { prefill_blocks: 10, overlap_blocks: 2, decode_blocks: 1 },
      ),
    ).toBe(19);
    expect(
      routeCost(
        { overlap_credit: 5, prefill_load_scale: 3 },
        { prefill_blocks: 10, overlap_blocks: 4, decode_blocks: 1 },
      ),
    ).toBe(1);
  });
});

describe("chooseWorker", () => {
  it("weighs overlap per tier when lower tiers are present: 8 host blocks (0.75 each) beat 5 on device", () => {
    const host = { ...load("w1", 10, 0, 5), credited_overlap: 8 * 0.75 };
    const device = { ...load("w2", 10, 5, 5), credited_overlap: 5 };
    const { chosen, candidates } = chooseWorker([host, device], policy, new Rng(1));
    expect(candidates.map((c) => c.cost)).toEqual([9, 10]);
    expect(chosen).toBe(0);
    // The decision reports device overlap; the credited overlap is the router's own.
    expect(candidates[0]).toEqual({
      worker_id: "w1",
      overlap_blocks: 0,
      prefill_blocks: 10,
      decode_blocks: 5,
      cost: 9,
    });
  });

  it("picks the second of the router's worked example (costs 18, 10, 11)", () => {
    const { chosen, candidates } = chooseWorker(
      [load("w1", 10, 2, 10), load("w2", 10, 5, 5), load("w3", 10, 8, 9)],
      policy,
      new Rng(1),
    );
    expect(candidates.map((c) => c.cost)).toEqual([18, 10, 11]);
    expect(chosen).toBe(1);
    expect(candidates[1]).toEqual({
      worker_id: "w2",
      prefill_blocks: 10,
      overlap_blocks: 5,
      decode_blocks: 5,
      cost: 10,
    });
  });

  it("breaks ties at random, reproducibly for a seed", () => {
    const loads = [load("a", 4, 0, 1), load("b", 4, 0, 1), load("c", 4, 0, 1)];
    const pick = (seed: number) => {
      const rng = new Rng(seed);
      return Array.from({ length: 30 }, () => chooseWorker(loads, policy, rng).chosen);
    };
    expect(pick(5)).toEqual(pick(5));
    expect(new Set(pick(5))).toEqual(new Set([0, 1, 2]));
  });

  it("leaves busy workers out unless all are busy", () => {
    const rng = new Rng(1);
    expect(chooseWorker([load("a", 1, 0, 0, true), load("b", 10, 0, 50)], policy, rng).chosen).toBe(1);
    expect(chooseWorker([load("a", 1, 0, 0, true), load("b", 10, 0, 50, true)], policy, rng).chosen).toBe(0);
  });

  it("samples a softmax over normalised costs when temperature > 0", () => {
    const loads = [load("cheap", 0, 0, 0), load("dear", 0, 0, 100)];
    const rng = new Rng(3);
    const hot = Array.from({ length: 2_000 }, () => chooseWorker(loads, { ...policy, temperature: 1 }, rng).chosen);
    const dearShare = hot.filter((c) => c === 1).length / hot.length;
    expect(dearShare).toBeGreaterThan(0.2);
    expect(dearShare).toBeLessThan(0.33);
    const cold = Array.from({ length: 500 }, () => chooseWorker(loads, { ...policy, temperature: 0.05 }, rng).chosen);
    expect(cold.filter((c) => c === 1).length).toBeLessThan(5);
  });
});
