import type { DecisionBucket, RequestSizedBucket } from "../../db/rows/routing";

// Routing decisions in words, and routing loss. Pure: plain rows in, values out; no data is null.

export type RouteCandidate = {
  worker_id: string;
  overlap_blocks: number;
  prefill_blocks: number;
  decode_blocks: number;
  cost: number;
};

export type DecisionInput = { chosenWorkerId: string; candidates: readonly RouteCandidate[]; temperature: number };

export type ExplanationKind =
  "only" | "overlap" | "load" | "overlap_and_load" | "cost" | "tie" | "sampled" | "skipped_cheaper";

export type Explanation = { kind: ExplanationKind; winnerId: string; runnerUpId: string | null; text: string };

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
const blocks = (n: number, adj: string) => `${n.toLocaleString("en-US")} ${adj} ${n === 1 ? "block" : "blocks"}`;
const costText = (c: number) => (Number.isInteger(c) ? c.toLocaleString("en-US") : c.toFixed(2));

/** The best candidate other than the winner: lowest cost, then most overlap, then worker id. */
export function runnerUp(chosenWorkerId: string, candidates: readonly RouteCandidate[]): RouteCandidate | null {
  let best: RouteCandidate | null = null;
  for (const c of candidates) {
    if (c.worker_id === chosenWorkerId) continue;
    if (
      !best ||
      c.cost < best.cost ||
      (c.cost === best.cost &&
        (c.overlap_blocks > best.overlap_blocks ||
          (c.overlap_blocks === best.overlap_blocks && c.worker_id < best.worker_id)))
    )
      best = c;
  }
  return best;
}

function join(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

/** What the winner had over the runner-up (more cache, less prefill or decode load) and what it gave up. */
function tradeoff(w: RouteCandidate, r: RouteCandidate): { kind: ExplanationKind; text: string } {
  const pros: string[] = [];
  const cons: string[] = [];
  const dOverlap = w.overlap_blocks - r.overlap_blocks;
  const dPrefill = r.prefill_blocks - w.prefill_blocks;
  const dDecode = r.decode_blocks - w.decode_blocks;
  if (dOverlap > 0) pros.push(blocks(dOverlap, "more cached"));
  if (dOverlap < 0) cons.push(blocks(-dOverlap, "fewer cached"));
  if (dPrefill > 0) pros.push(blocks(dPrefill, "fewer prefill"));
  if (dPrefill < 0) cons.push(blocks(-dPrefill, "more prefill"));
  if (dDecode > 0) pros.push(blocks(dDecode, "fewer decode"));
  if (dDecode < 0) cons.push(blocks(-dDecode, "more decode"));
  const onOverlap = dOverlap > 0;
  const onLoad = dPrefill > 0 || dDecode > 0;
  if (!onOverlap && !onLoad)
    return {
      kind: "cost",
      text: `won on cost: ${costText(w.cost)} vs ${costText(r.cost)} with the same overlap and load`,
    };
  const kind: ExplanationKind = onOverlap && onLoad ? "overlap_and_load" : onOverlap ? "overlap" : "load";
  const label = kind === "overlap_and_load" ? "overlap and load" : kind;
  return { kind, text: `won on ${label}: ${join(pros)}${cons.length ? ` outweighed ${join(cons)}` : ""}` };
}

/**
 * Why the router chose its worker, in words, against the runner-up (the best other candidate).
 * Temperature 0: the lowest cost wins and equal costs are a random tie-break; a cheaper candidate that lost
 * was skipped (Dynamo leaves busy workers out). Temperature > 0: the choice was sampled, so a winner that is
 * not the cheapest is said to be sampled rather than explained by its blocks.
 */
export function explainDecision(d: DecisionInput): Explanation {
  const w = d.candidates.find((c) => c.worker_id === d.chosenWorkerId);
  const r = runnerUp(d.chosenWorkerId, d.candidates);
  const base = { winnerId: d.chosenWorkerId, runnerUpId: r?.worker_id ?? null };
  if (!w) return { ...base, kind: "cost", text: "the chosen worker is not among the candidates" };
  if (!r) return { ...base, kind: "only", text: "the only candidate" };
  const sampled = d.temperature > 0 ? `sampled with temperature ${d.temperature}` : null;
  if (w.cost > r.cost) {
    if (sampled)
      return {
        ...base,
        kind: "sampled",
        text: `${sampled} (not the lowest cost: ${costText(w.cost)} vs ${costText(r.cost)} on ${r.worker_id})`,
      };
    return {
      ...base,
      kind: "skipped_cheaper",
      text: `chosen over cheaper ${r.worker_id} (cost ${costText(r.cost)} vs ${costText(w.cost)}), which was likely busy`,
    };
  }
  if (w.cost === r.cost) {
    const ties = d.candidates.filter((c) => c.cost === w.cost).length;
    const text = sampled
      ? `tied on cost ${costText(w.cost)} with ${plural(ties - 1, "other")}; ${sampled}`
      : `tie broken at random (cost ${costText(w.cost)} on ${plural(ties, "candidate")})`;
    return { ...base, kind: "tie", text };
  }
  const t = tradeoff(w, r);
  return { ...base, kind: t.kind, text: sampled ? `${t.text}; ${sampled}` : t.text };
}

export type LossSums = {
  /** Σ (best − chosen overlap) × block size over decisions with a known block size. */
  lostTokens: number;
  /** Σ prompt_blocks × block size over decisions with a known block size. */
  promptTokens: number;
  /** The same sums in blocks over every decision. */
  lostBlocks: number;
  promptBlocks: number;
  decisions: number;
  /** Decisions whose block size is unknown (no request row or worker with one). */
  unknownBlockSize: number;
};

export type RoutingLoss = { share: number | null; lost: number; prompt: number; unit: "tokens" | "blocks" };

/**
 * Routing loss: the share of prompt tokens recomputed although another candidate held more of the prefix.
 * In tokens when every decision's block size is known; otherwise in blocks over all decisions (and says so).
 * null without decisions or prompt.
 */
export function routingLoss(s: LossSums): RoutingLoss {
  if (s.decisions > 0 && s.unknownBlockSize === 0) {
    return {
      share: s.promptTokens > 0 ? s.lostTokens / s.promptTokens : null,
      lost: s.lostTokens,
      prompt: s.promptTokens,
      unit: "tokens",
    };
  }
  return {
    share: s.promptBlocks > 0 ? s.lostBlocks / s.promptBlocks : null,
    lost: s.lostBlocks,
    prompt: s.promptBlocks,
    unit: "blocks",
  };
}

/** Overall recomputed share of prompt tokens (1 − cached / input); null without input tokens. */
export function recomputedShare(inputTokens: number, cachedTokens: number): number | null {
  return inputTokens > 0 ? Math.max(0, inputTokens - cachedTokens) / inputTokens : null;
}

/** Sum loss rows (e.g. per-bucket rows into a range total). */
export function addLoss(rows: readonly LossSums[]): LossSums {
  const out: LossSums = {
    lostTokens: 0,
    promptTokens: 0,
    lostBlocks: 0,
    promptBlocks: 0,
    decisions: 0,
    unknownBlockSize: 0,
  };
  for (const r of rows) {
    out.lostTokens += r.lostTokens;
    out.promptTokens += r.promptTokens;
    out.lostBlocks += r.lostBlocks;
    out.promptBlocks += r.promptBlocks;
    out.decisions += r.decisions;
    out.unknownBlockSize += r.unknownBlockSize;
  }
  return out;
}

export type LossBucket = LossSums & { t: number };

/**
 * Routing loss per bucket and over the range, all in one unit: tokens when every decision of the range has a
 * known block size, blocks otherwise (mixing units across buckets would make the line jump). Buckets
 * without decisions are absent (gaps for the chart).
 */
export function routingLossSeries(buckets: readonly LossBucket[]): {
  unit: "tokens" | "blocks";
  total: RoutingLoss;
  decisions: number;
  unknownBlockSize: number;
  points: { t: number; share: number | null }[];
} {
  const sums = addLoss(buckets);
  const total = routingLoss(sums);
  const inTokens = total.unit === "tokens";
  const points = buckets.map((b) => {
    const [lost, prompt] = inTokens ? [b.lostTokens, b.promptTokens] : [b.lostBlocks, b.promptBlocks];
    return { t: b.t, share: prompt > 0 ? lost / prompt : null };
  });
  return { unit: total.unit, total, decisions: sums.decisions, unknownBlockSize: sums.unknownBlockSize, points };
}

/** The recomputed share (1 − cached / input) per bucket of request sums and over the range. */
export function recomputedSeries(buckets: readonly { t: number; input: number; cached: number }[]) {
  let input = 0;
  let cached = 0;
  for (const b of buckets) {
    input += b.input;
    cached += b.cached;
  }
  return {
    share: recomputedShare(input, cached),
    inputTokens: input,
    cachedTokens: cached,
    points: buckets.map((b) => ({ t: b.t, share: recomputedShare(b.input, b.cached) })),
  };
}

export type RankedCandidate = RouteCandidate & { mark: "winner" | "runner_up" | null };

/**
 * Candidates by cost (then most overlap, then id), the winner and runner-up marked, cut to `max` rows
 * while always keeping those two.
 */
export function rankCandidates(
  candidates: readonly RouteCandidate[],
  winnerId: string,
  runnerUpId: string | null,
  max = 50,
): RankedCandidate[] {
  const sorted = [...candidates].sort(
    (a, b) =>
      a.cost - b.cost ||
      b.overlap_blocks - a.overlap_blocks ||
      (a.worker_id < b.worker_id ? -1 : a.worker_id > b.worker_id ? 1 : 0),
  );
  const marked = sorted.map((c) => ({
    ...c,
    mark: c.worker_id === winnerId ? ("winner" as const) : c.worker_id === runnerUpId ? ("runner_up" as const) : null,
  }));
  if (marked.length <= max) return marked;
  const kept = marked.slice(0, max);
  for (const c of marked.slice(max)) if (c.mark) kept.push(c);
  return kept;
}

export type StoredDecision = {
  chosenWorkerId: string;
  chosenOverlapBlocks: number;
  bestOverlapBlocks: number;
  promptBlocks: number;
  candidates: string;
  temperature: number;
  blockSize: number | null;
};

/**
 * A stored decision for the list: candidates parsed, ranked and marked, the explanation, and the prefix it
 * lost to routing (best − chosen overlap; in tokens only when the block size is known, else null).
 */
export function describeDecision<R extends StoredDecision>(row: R, maxCandidates = 50) {
  const { candidates: json, ...rest } = row;
  const candidates = JSON.parse(json) as RouteCandidate[];
  const explanation = explainDecision({ chosenWorkerId: row.chosenWorkerId, candidates, temperature: row.temperature });
  const lostBlocks = row.bestOverlapBlocks - row.chosenOverlapBlocks;
  return {
    ...rest,
    explanation,
    candidates: rankCandidates(candidates, explanation.winnerId, explanation.runnerUpId, maxCandidates),
    lostBlocks,
    lostTokens: row.blockSize === null ? null : lostBlocks * row.blockSize,
  };
}

/**
 * Loss sums per bucket from per-worker decision sums: tokens through the chosen worker's block size, or for a
 * worker without one through its decisions' request block sizes (`fallback`); decisions with neither count as
 * unknown. Buckets in time order.
 */
export function lossBuckets(
  rows: readonly DecisionBucket[],
  sizes: ReadonlyMap<string, number>,
  fallback: readonly RequestSizedBucket[],
): LossBucket[] {
  const fb = new Map(fallback.map((f) => [`${f.t}\u0000${f.workerId}`, f]));
  const byT = new Map<number, LossBucket>();
  for (const r of rows) {
    let b = byT.get(r.t);
    if (!b)
      byT.set(
        r.t,
        (b = {
          t: r.t,
          lostTokens: 0,
          promptTokens: 0,
          lostBlocks: 0,
          promptBlocks: 0,
          decisions: 0,
          unknownBlockSize: 0,
        }),
      );
    b.decisions += r.decisions;
    b.lostBlocks += r.lostBlocks;
    b.promptBlocks += r.promptBlocks;
    const bs = sizes.get(r.workerId);
    const f = fb.get(`${r.t}\u0000${r.workerId}`);
    if (bs !== undefined) {
      b.lostTokens += r.lostBlocks * bs;
      b.promptTokens += r.promptBlocks * bs;
    } else if (f) {
      b.lostTokens += f.lostTokens;
      b.promptTokens += f.promptTokens;
      b.unknownBlockSize += f.unknownBlockSize;
    } else b.unknownBlockSize += r.decisions;
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}
