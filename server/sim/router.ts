import type { RoutingPolicy } from "../../lib/policies/policies";
import type { Rng } from "./prng";

// Dynamo's KV-aware routing rule: cost = prefill_load_scale * max(prefill_blocks - credit *
// overlap_blocks, 0) + decode_blocks. Lowest cost wins (seeded random tie-break); with temperature
// > 0 a softmax over min-max-normalised costs is sampled instead. With lower KV tiers the overlap in the cost is
// credited per tier (kv-tiers.ts TIER_CREDIT); decisions still report device overlap.

export type Candidate = {
  worker_id: string;
  overlap_blocks: number;
  prefill_blocks: number;
  decode_blocks: number;
  cost: number;
};

/** A candidate's load; `credited_overlap` (lower KV tiers present) is its overlap with each tier's credit, used in the cost. */
export type CandidateLoad = Omit<Candidate, "cost"> & { busy: boolean; credited_overlap?: number };

/** The cost of one candidate under a routing policy. */
export function routeCost(
  policy: Pick<RoutingPolicy, "overlap_credit" | "prefill_load_scale">,
  c: Omit<Candidate, "cost" | "worker_id"> & { credited_overlap?: number },
): number {
  const overlap = c.credited_overlap ?? c.overlap_blocks;
  return policy.prefill_load_scale * Math.max(c.prefill_blocks - policy.overlap_credit * overlap, 0) + c.decode_blocks;
}

/** Score every candidate and choose one; busy workers are left out unless all are busy. */
export function chooseWorker(
  loads: readonly CandidateLoad[],
  policy: Pick<RoutingPolicy, "overlap_credit" | "prefill_load_scale" | "temperature">,
  rng: Rng,
): { chosen: number; candidates: Candidate[] } {
  if (loads.length === 0) throw new Error("no workers to route to");
  const allBusy = loads.every((l) => l.busy);
  const candidates: Candidate[] = [];
  const eligible: number[] = [];
  for (let i = 0; i < loads.length; i++) {
    const l = loads[i]!;
    candidates.push({
      worker_id: l.worker_id,
      overlap_blocks: l.overlap_blocks,
      prefill_blocks: l.prefill_blocks,
      decode_blocks: l.decode_blocks,
      cost: routeCost(policy, l),
    });
    if (allBusy || !l.busy) eligible.push(i);
  }
  return {
    chosen:
      policy.temperature > 0
        ? sample(candidates, eligible, policy.temperature, rng)
        : lowest(candidates, eligible, rng),
    candidates,
  };
}

function lowest(candidates: Candidate[], eligible: number[], rng: Rng): number {
  let best = Infinity;
  let ties: number[] = [];
  for (const i of eligible) {
    const cost = candidates[i]!.cost;
    if (cost < best) {
      best = cost;
      ties = [i];
    } else if (cost === best) ties.push(i);
  }
  return ties.length === 1 ? ties[0]! : ties[Math.floor(rng.next() * ties.length)]!;
}

function sample(candidates: Candidate[], eligible: number[], temperature: number, rng: Rng): number {
  let min = Infinity;
  let max = -Infinity;
  for (const i of eligible) {
    min = Math.min(min, candidates[i]!.cost);
    max = Math.max(max, candidates[i]!.cost);
  }
  const span = max - min;
  const weights = eligible.map((i) => Math.exp(-(span > 0 ? (candidates[i]!.cost - min) / span : 0) / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  let x = rng.next() * total;
  for (let k = 0; k < eligible.length; k++) {
    x -= weights[k]!;
    if (x < 0) return eligible[k]!;
  }
  return eligible[eligible.length - 1]!;
}
