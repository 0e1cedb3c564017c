import { AppError } from "../errors";
import { splitWorkerKey } from "../../lib/worker-key";
import { curveOptionsFor } from "../analysis/capacity/mrc";
import { kvBytesPerToken } from "../analysis/capacity/model-facts";
import { capacityReport, type CapacityReport } from "../analysis/capacity/report";
import { tierGrid, type TierCell } from "../analysis/capacity/tiers";
import { loadWindow } from "../preview/load";
import { clusterShape } from "../preview/cluster-shape";
import { prefixShapes } from "../preview/prefix-shape";
import { replayOnce } from "../preview/run";
import type { ReplayInput } from "../preview/types";
import { windowSourceOf, sqliteWindow } from "../preview/window-source";
import type { WindowFrom } from "../preview/compute";
import type { WorkerRole } from "../sim/types";

// The capacity page's two jobs, run on a preview thread (they read a window as a preview does and take its slot):
// the LRU curves of a window with the tier grid and a target's answer, and the replay of a few capacities through
// the preview engine with the window's recorded policies, to set beside the curve.

/** Which workers (and the turns routed to them) a capacity job looks at: a cluster, one model, one role. */
export type CapacityScope = { cluster: string; model: string | null; role: WorkerRole | null };

export type CapacityTask = CapacityScope & {
  task: "capacity";
  from: number;
  to: number;
  capacities: number[] | null;
  target: number | null;
  bytesPerToken: number | null;
  tierGbps: number;
  /** Memory the exact pass may use; past it the curves are sampled. */
  memoryBytes: number;
};

export type ReplayTask = CapacityScope & { task: "capacity-replay"; from: number; to: number; capacities: number[] };

/** A job a preview thread runs besides previews. */
export type ThreadTask = CapacityTask | ReplayTask;

export type TierSection = {
  gb_per_second: number;
  device_blocks: number[];
  tier_blocks: number[];
  /** Device sizes outer, tier sizes inner (per worker, blocks). */
  cells: TierCell[];
  /** With today's device KV, the tier the target needs and what reading from it costs (null: no target, or the
   * curve does not reach it, or today's capacity is not known). */
  answer: { tier_blocks: number; tier_gigabytes: number; cell: TierCell } | null;
};

export type CapacityResult = CapacityScope & {
  from: number;
  to: number;
  /** Where the GB figures' bytes per token come from. */
  kv_source: string;
  /** Where today's capacity comes from. */
  today_source: string;
  report: CapacityReport;
  tiers: TierSection | null;
  /** Why there is no tier grid, when there is none. */
  tiers_note: string | null;
  /** Where the job's time went, in ms: reading the window, the curves, the tier grid. */
  elapsed_ms: { read: number; curves: number; tiers: number };
};

export type ReplayedPoint = {
  blocks: number;
  /** Token-weighted hit rate of the replay (tokens served from any KV tier count), 0–1; null: no prompt tokens. */
  hit_rate: number | null;
  prompt_tokens: number;
  cached_tokens: number;
  evictions: number;
  refused: number;
  elapsed_ms: number;
};

export type ReplayResult = CapacityScope & {
  from: number;
  to: number;
  /** The window's measured token-weighted hit rate (its recorded cached tokens). */
  measured_hit_rate: number | null;
  points: ReplayedPoint[];
  /** What the replay models that the LRU curve does not, and what it assumed. */
  notes: string[];
};

/** Tier sizes tried behind each device size, as multiples of today's per-worker capacity. */
const TIER_MULTIPLES = [0, 1, 2, 4, 8];
const DEVICE_MULTIPLES = [0.5, 1, 2];

/** Run one task against a window source (a preview thread's connection, or the store inline). */
export async function runTask(from: WindowFrom, t: ThreadTask, cancelled?: () => boolean): Promise<unknown> {
  return t.task === "capacity" ? computeCapacity(from, t) : replayCapacities(from, t, cancelled);
}

const sourceOf = (w: WindowFrom, cluster: string) =>
  "$client" in w ? sqliteWindow(w, cluster) : windowSourceOf(w, cluster);

/** The window read for a task; null when it holds no recorded requests. */
async function windowOf(
  from: WindowFrom,
  s: CapacityScope & { from: number; to: number },
): Promise<ReplayInput | null> {
  try {
    return selectWorkers(await loadWindow(sourceOf(from, s.cluster), s.from, s.to), s);
  } catch (err) {
    if (err instanceof AppError && (err.details as { empty?: boolean } | undefined)?.empty) return null;
    throw err;
  }
}

/**
 * The window narrowed to one model's or role's workers and the turns routed to them (their router only chose among
 * them); unrouted turns are dropped then. Refused (404) when no worker of the window matches.
 */
export function selectWorkers(input: ReplayInput, s: CapacityScope): ReplayInput {
  if (s.model === null && s.role === null) return input;
  const workers = input.workers.filter(
    (w) => (s.model === null || w.model === s.model) && (s.role === null || w.role === s.role),
  );
  if (workers.length === 0) {
    const have = [...new Set(input.workers.map((w) => (s.model !== null ? w.model : w.role)).filter(Boolean))];
    throw new AppError(
      "NOT_FOUND",
      `no worker of cluster ${s.cluster} ${s.model !== null ? `serves model ${s.model}` : `has role ${s.role}`} in this window${have.length ? ` (found: ${have.join(", ")})` : ""}`,
    );
  }
  const ids = new Set(workers.map((w) => w.workerId));
  return { ...input, workers, turns: input.turns.filter((t) => t.workerId !== null && ids.has(t.workerId)) };
}

/** Curves, answer and tier grid of a window. */
export async function computeCapacity(from: WindowFrom, t: CapacityTask): Promise<CapacityResult> {
  const scope = { cluster: t.cluster, model: t.model, role: t.role, from: t.from, to: t.to };
  const t0 = performance.now();
  const input = await windowOf(from, t);
  const t1 = performance.now();
  const kv = kvBytesPerToken(input?.workers.map((w) => w.model ?? null) ?? [], t.bytesPerToken);
  if (!input)
    return {
      ...scope,
      kv_source: kv.source,
      today_source: "no workers in the window",
      report: { empty: "no recorded requests in the window", turns: 0, input_tokens: 0 },
      tiers: null,
      tiers_note: null,
      elapsed_ms: { read: Math.round(t1 - t0), curves: 0, tiers: 0 },
    };
  const base = curveOptionsFor(input);
  const report = withWorkerIds(
    capacityReport(input, {
      base,
      capacities: t.capacities,
      target: t.target,
      bytesPerToken: kv.bytesPerToken,
      memoryBytes: t.memoryBytes,
    }),
  );
  const today = base.at?.[0] ?? null;
  const t2 = performance.now();
  const todaySource =
    today === null
      ? "no worker reported its KV capacity in this window: the curve spans 4× its longest prompt"
      : `the largest kv_total_blocks a worker of the window reported (${today.toLocaleString("en-US")} blocks)`;
  let tiers: TierSection | null = null;
  let tiersNote: string | null = null;
  if (report.empty !== null) tiersNote = report.empty;
  else if (today === null) tiersNote = "today's capacity is not known, so there is no grid around it";
  else if (report.sampling)
    tiersNote = "the window is too large for the exact pass the tier grid needs: choose a shorter one";
  else if (t.capacities) tiersNote = "not computed for a list of capacities";
  else tiers = tierSection(input, report, today, kv.bytesPerToken, t.tierGbps);
  const elapsed = { read: Math.round(t1 - t0), curves: Math.round(t2 - t1), tiers: Math.round(performance.now() - t2) };
  return {
    ...scope,
    kv_source: kv.source,
    today_source: todaySource,
    report,
    tiers,
    tiers_note: tiersNote,
    elapsed_ms: elapsed,
  };
}

/** Worker curves named by the worker's own id (its stored key names its cluster too: `staging/w1`). */
function withWorkerIds(r: CapacityReport): CapacityReport {
  if (r.empty !== null) return r;
  const named = (scope: string) =>
    scope.startsWith("worker:") ? (`worker:${splitWorkerKey(scope.slice("worker:".length)).id}` as const) : scope;
  return { ...r, curves: r.curves.map((c) => ({ ...c, scope: named(c.scope) as typeof c.scope })) };
}

/** The grid around today's capacity, with the tier size a target needs behind today's device KV. */
function tierSection(
  input: ReplayInput,
  report: Extract<CapacityReport, { empty: null }>,
  today: number,
  bytesPerToken: number,
  gbps: number,
): TierSection {
  const needed = report.answer?.per_worker.more_than_today?.blocks ?? null;
  const device = [...new Set(DEVICE_MULTIPLES.map((m) => Math.round(today * m)))];
  const tier = [...new Set([...TIER_MULTIPLES.map((m) => m * today), ...(needed ? [needed] : [])])].sort(
    (a, b) => a - b,
  );
  const grid = tierGrid(input, { device, tier, scope: "worker", bytesPerToken, gbPerSecond: gbps });
  if (grid.empty !== null) throw new AppError("INTERNAL", "tier grid of a window with chains came back empty");
  const cell = needed ? grid.cells.find((c) => c.deviceBlocks === today && c.tierBlocks === needed)! : null;
  return {
    gb_per_second: gbps,
    device_blocks: device,
    tier_blocks: tier,
    cells: grid.cells,
    answer:
      needed && cell
        ? { tier_blocks: needed, tier_gigabytes: (needed * report.block_size * bytesPerToken) / 1e9, cell }
        : null,
  };
}

/**
 * The window replayed through the preview engine once per capacity, with the policies recorded in it and the
 * recorded workers each given `blocks` of device KV: what the router, retention priorities, pins and TTLs, and the
 * tiers make of that capacity, to set beside the LRU curve.
 */
export async function replayCapacities(
  from: WindowFrom,
  t: ReplayTask,
  cancelled?: () => boolean,
): Promise<ReplayResult> {
  const input = await windowOf(from, t);
  if (!input)
    throw new AppError("BAD_REQUEST", "no recorded requests in this window: nothing to replay", { empty: true });
  const observed = clusterShape(input.workers, input.turns, null);
  const shapes = prefixShapes(input.turns, input.firstRuns);
  const points: ReplayedPoint[] = [];
  for (const blocks of t.capacities) {
    const started = Date.now();
    const shape = {
      ...observed,
      kvBlocks: { aggregated: blocks, prefill: blocks, decode: blocks },
      source: "override" as const,
    };
    const r = replayOnce(input, input.baseline, "as_recorded", shape, shapes, () => undefined, cancelled);
    points.push({
      blocks,
      hit_rate: r.summary.hit_rate,
      prompt_tokens: r.summary.prompt_tokens,
      cached_tokens: r.summary.cached_tokens,
      evictions: Object.values(r.summary.evictions_by_reason).reduce((a, b) => a + b, 0),
      refused: r.refused,
      elapsed_ms: Date.now() - started,
    });
  }
  let hit = 0;
  let prompt = 0;
  for (const turn of input.turns)
    if (turn.phase === "window") {
      hit += turn.cachedTokens;
      prompt += turn.inputTokens;
    }
  return {
    cluster: t.cluster,
    model: t.model,
    role: t.role,
    from: t.from,
    to: t.to,
    measured_hit_rate: prompt > 0 ? hit / prompt : null,
    points,
    notes: [
      ...observed.notes.filter((n) => !n.startsWith("KV capacity")),
      ...input.baselineNotes,
      "the replay routes every turn again with the recorded router policy (its cache state differs from the recording's, so turns may land elsewhere); the LRU curve keeps the recorded routing",
      "the replay evicts by retention priority, pins and TTLs, holds blocks in use by running requests, and serves from host or disk tiers when the recorded policy has them; the LRU curve is one device cache evicting the least recently used block",
    ],
  };
}
