import { type PolicyDocuments, type PolicyKind } from "../../lib/policies/policies";
import { policyContentHash } from "../control/content-hash";
import { quantileSorted } from "../../lib/quantile";
import { Simulation } from "../sim/engine";
import type { Scenario } from "../sim/scenarios";
import { DEFAULT_ENGINE_TIMING } from "../sim/timing";
import { clusterShape, type ClusterShape } from "./cluster-shape";
import { COLLECTED_KINDS, RunCollector } from "./collector";
import { prefixShapes, type PrefixShape } from "./prefix-shape";
import { promptsOf } from "./recorded-prompts";
import { RecordedReplay, type HeaderMode, type ReplayHooks } from "./recorded-replay";
import { compareSessions } from "./session-deltas";
import type { ClusterOverride, PreviewResult, ReplayInput, RunSummary } from "./types";

// The replay engine: the recorded window played through the simulator's cluster model twice — under the policies in
// force then (baseline) and with the candidate document in place of its kind — and the baseline compared with what
// the window measured. Pure apart from the clock it reads for elapsed time; progress and cancellation are callbacks.

export type PreviewHooks = {
  /** Share done, 0–1. */
  progress?: (share: number) => void;
  /** Checked between simulated minutes; true stops the run (it throws PreviewCancelled). */
  cancelled?: () => boolean;
};

export class PreviewCancelled extends Error {
  constructor() {
    super("preview cancelled");
  }
}

/** Simulated time allowed after the window for the turns still running to finish. */
export const DRAIN_MS = 10 * 60_000;
const STEP_MS = 60_000;
const SEED = 1;

export type ReplayPlan = {
  shape: ClusterShape;
  shapes: Map<string, PrefixShape>;
  /** Baseline, then candidate: the policies and what the frontend does to block 0 compared with the recording. */
  runs: [PolicyDocuments, HeaderMode][];
};

/** What the two runs replay: the cluster, the prompt shapes, and each run's policies. */
export function planPreview(
  input: ReplayInput,
  kind: PolicyKind,
  candidate: unknown,
  override: ClusterOverride | null,
): ReplayPlan {
  const shape = clusterShape(input.workers, input.turns, override);
  const shapes = prefixShapes(input.turns, input.firstRuns);
  const candidateDocs = { ...input.baseline, [kind]: candidate } as PolicyDocuments;
  const recordedStrip = input.baseline.frontend.strip_anthropic_preamble;
  const header = (docs: PolicyDocuments): HeaderMode =>
    docs.frontend.strip_anthropic_preamble === recordedStrip ? "as_recorded" : recordedStrip ? "add" : "strip";
  return {
    shape,
    shapes,
    runs: [
      [input.baseline, "as_recorded"],
      [candidateDocs, header(candidateDocs)],
    ],
  };
}

/** Preview `candidate` (a validated document of `kind`) on the recorded window, both runs on this thread. */
export function runPreview(
  input: ReplayInput,
  kind: PolicyKind,
  candidate: unknown,
  override: ClusterOverride | null,
  hooks: PreviewHooks = {},
): PreviewResult {
  const started = Date.now();
  const plan = planPreview(input, kind, candidate, override);
  const [base, cand] = plan.runs.map(([docs, mode], r) =>
    replayOnce(
      input,
      docs,
      mode,
      plan.shape,
      plan.shapes,
      (share) => hooks.progress?.((r + share) / 2),
      hooks.cancelled,
    ),
  ) as [Replayed, Replayed];
  return assembleResult(input, kind, candidate, plan, base, cand, started);
}

/** The result of two finished runs. */
export function assembleResult(
  input: ReplayInput,
  kind: PolicyKind,
  candidate: unknown,
  plan: ReplayPlan,
  base: Replayed,
  cand: Replayed,
  started: number,
): PreviewResult {
  const { shape, shapes, runs } = plan;
  const measured = measure(input);
  const diff = (p: number | null, m: number | null, scale = 1) =>
    p === null || m === null ? null : Math.round((p - m) * scale * 10) / 10;
  return {
    kind,
    content_hash: policyContentHash(kind, candidate),
    window: { from: input.from, to: input.to },
    baseline: base.summary,
    candidate: cand.summary,
    measured,
    error: {
      hit_rate_points: diff(base.summary.hit_rate, measured.hit_rate, 100),
      ttft_p50_ms: diff(base.summary.ttft_p50_ms, measured.ttft_p50_ms),
      ttft_p95_ms: diff(base.summary.ttft_p95_ms, measured.ttft_p95_ms),
    },
    sessions: compareSessions(input.turns, base.cached, cand.cached, 10),
    assumptions: [...assumptionsOf(input, shape, shapes, runs[1]![1]), ...refusalNotes(base.refused, cand.refused)],
    cluster: {
      workers: shape.workers,
      kv_blocks: Object.fromEntries(Object.keys(shape.workers).map((r) => [r, shape.kvBlocks[r as "aggregated"]])),
      block_size: shape.blockSize,
      source: shape.source,
    },
    elapsed_ms: Date.now() - started,
  };
}

/** `refused`: turns of the window the recording served that this run refused (see RunCollector.refused). */
export type Replayed = { summary: RunSummary; cached: Int32Array; refused: number };

/** One run of the window under `docs`; `progress` gets the share of the window done. */
export function replayOnce(
  input: ReplayInput,
  docs: PolicyDocuments,
  header: HeaderMode,
  shape: ClusterShape,
  shapes: ReadonlyMap<string, PrefixShape>,
  progress: (share: number) => void,
  cancelled: (() => boolean) | undefined,
  /** What the replay tells of each turn sent and done (the run's collector; tests wrap it). */
  hooksOf: (collector: RunCollector) => ReplayHooks = (c) => c,
): Replayed {
  const turns = input.turns;
  // From the first recorded turn (a warm-up turn before the window, or the first in it): a window that starts before
  // the recording did (a cluster younger than the window) must not replay an idle stretch first, in which the planner
  // would scale the replayed cluster down to its minimum before any traffic came.
  const startMs = turns.length ? turns[0]!.arrivedAt : input.from;
  const scenario: Scenario = {
    name: "replay",
    description: "recorded traffic",
    model: "replay",
    blockSize: shape.blockSize,
    timing: DEFAULT_ENGINE_TIMING,
    startupSeconds: 30,
    kvBlocks: shape.kvBlocks,
    workers: shape.workers,
    sessions: () => 0,
    kinds: [],
    policies: docs,
  };
  const trace = { entries: [], blockSize: shape.blockSize };
  const sim = new Simulation({ scenario, seed: SEED, startMs, trace, fixedPolicies: true });
  const prompts = promptsOf(turns, shapes, shape.blockSize, header);
  // Sized for the blocks the marks leave to look up, not for every block of the window: a set far larger than what
  // it holds costs a page fault per insert.
  const collector = new RunCollector(turns, shape.blockSize, input.from, input.to, sim.cluster, prompts.lookupBound);
  sim.setSink((e) => collector.event(e), [...COLLECTED_KINDS]);
  sim.onRemovals = (w, ts, counts) => collector.removals(w, ts, counts);
  const replay = new RecordedReplay(sim, prompts, input.continuing, hooksOf(collector), input.to);
  replay.start();
  const end = input.to + DRAIN_MS;
  const span = Math.max(1, input.to - startMs);
  let t = startMs;
  while (t < end && !(t >= input.to && replay.idle)) {
    if (cancelled?.()) throw new PreviewCancelled();
    t = Math.min(end, t + STEP_MS);
    sim.runUntil(t);
    progress(Math.min(1, (t - startMs) / span));
  }
  progress(1);
  return { summary: collector.summary(Math.min(t, input.to)), cached: collector.cachedOf, refused: collector.refused };
}

/**
 * Turns the recording served that a run refused: a worker's KV less its pinned blocks no longer holds their prompt and
 * output. The replay still sends their agents' later turns (the load of whoever goes on or replaces them), so these
 * turns' own answers and what their agents would do without them are not modelled.
 */
function refusalNotes(base: number, cand: number): string[] {
  const note = (n: number, run: string) =>
    `${n} turns the recording served were refused in the ${run} (prompt and output over a worker's KV less its pinned blocks): they count with no cached tokens, and their agents' later recorded turns are still sent`;
  return [...(base > 0 ? [note(base, "baseline")] : []), ...(cand > 0 ? [note(cand, "candidate")] : [])];
}

/** The window's own figures: token-weighted hit rate and TTFT of the recorded (not warm-up) turns. */
function measure(input: ReplayInput): PreviewResult["measured"] {
  let hit = 0;
  let query = 0;
  let requests = 0;
  const ttft: number[] = [];
  for (const t of input.turns) {
    if (t.phase !== "window") continue;
    requests++;
    hit += t.cachedTokens;
    query += t.inputTokens;
    if (t.firstTokenAt !== null) ttft.push(t.firstTokenAt - t.arrivedAt);
  }
  ttft.sort((a, b) => a - b);
  const known = !input.imported && query > 0;
  return {
    hit_rate: known ? hit / query : null,
    ttft_p50_ms: quantileSorted(ttft, 0.5),
    ttft_p95_ms: quantileSorted(ttft, 0.95),
    requests,
  };
}

function assumptionsOf(
  input: ReplayInput,
  shape: ClusterShape,
  shapes: ReadonlyMap<string, PrefixShape>,
  header: HeaderMode,
): string[] {
  const out = [...input.baselineNotes, ...shape.notes];
  const noChains = input.turns.filter((t) => t.blocks === null).length;
  if (noChains > 0)
    out.push(
      `${noChains} requests carried no hash chains: their prompts are replayed as content no other request shares`,
    );
  if (input.imported)
    out.push("the requests were imported from a trace: no cached tokens were measured to compare with");
  out.push(
    "caches start as the replay of the minutes before the window leaves them",
    "each trajectory sends its recorded turns in order, each its recorded gap after the previous one finished; a turn counts when the replay sends it inside the window (a faster candidate can bring in turns recorded after it, never turns that were not recorded)",
    "engine speed is the simulator's built-in profile (prefill and decode curves calibrated to 52k-token prompts)",
    `prompt segments are inferred: blocks several sessions share at the start are the system prompt and tool definitions (split where a recorded store of the same first block changed class: found for ${[...shapes.values()].filter((s) => s.firstBlocks < s.sharedBlocks || s.firstSegment !== 0).length} of ${shapes.size} trajectories; else all taken as system prompt), the rest the agent's conversation or subagent state`,
    "tool output truncation is not replayed: prompts are as recorded",
  );
  if (header !== "as_recorded") {
    const headed = [...shapes.values()].filter((s) => s.headed).length;
    out.push(
      header === "strip"
        ? `stripping the billing header makes block 0 of ${headed} Claude-Code-like trajectories the same as every other trajectory with the same next block`
        : "not stripping the billing header gives every Claude-Code-like trajectory its own block 0",
    );
  }
  return out;
}
