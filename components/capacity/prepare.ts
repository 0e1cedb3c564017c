// What the Capacity page draws from GET /api/capacity and /api/capacity/replay: chart rows on one per-worker axis, the
// replayed points beside the curve, the per-worker table, the tier grid and the target's answer in words. Pure.

export type CapacityPoint = { blocks: number; tokens: number; gigabytes: number; hit_rate: number; hit_tokens: number };
export type CapacitySize = { blocks: number; tokens: number; gigabytes: number; hit_rate: number };
export type TierCell = {
  deviceBlocks: number;
  tierBlocks: number;
  device: number;
  tier: number;
  recomputed: number;
  onboardMsPerTierTurn: number | null;
};
export type Answer = {
  target: number;
  size: CapacitySize | null;
  below: CapacitySize | null;
  best: number;
  more_than_today: CapacitySize | null;
};

/** The JSON of GET /api/capacity (the fields the page reads). */
export type CapacityBody = {
  cluster: string;
  model: string | null;
  from: number;
  to: number;
  deleted: string[];
  kv_source: string;
  today_source: string;
  empty: string | null;
  turns: number;
  input_tokens: number;
  block_size?: number;
  chained_turns?: number;
  unrouted_turns?: number;
  workers?: number;
  bytes_per_token?: number;
  today_blocks?: number | null;
  sampling?: null | { rate: number; reliable_from_blocks: number; error_points: number | null; method: string };
  per_worker?: { points: CapacityPoint[] };
  curves?: { scope: string; turns: number; input_tokens: number; points: CapacityPoint[] }[];
  knee?: { per_worker: CapacitySize | null; shared: CapacitySize | null };
  answer?: { per_worker: Answer; shared: Answer } | null;
  tiers?: null | {
    gb_per_second: number;
    device_blocks: number[];
    tier_blocks: number[];
    cells: TierCell[];
    answer: { tier_blocks: number; tier_gigabytes: number; cell: TierCell } | null;
  };
  tiers_note?: string | null;
  elapsed_ms?: { read: number; curves: number; tiers: number };
};

export type ReplayBody = {
  measured_hit_rate: number | null;
  points: { blocks: number; hit_rate: number | null; refused: number; evictions: number; elapsed_ms: number }[];
  notes: string[];
};

/** One row of the chart: a per-worker size (blocks) with the hit rates (%) each series has there. */
export type ChartRow = { blocks: number; gb: number; perWorker?: number; shared?: number; replayed?: number };

const pct = (v: number) => Math.round(v * 1000) / 10;

/**
 * Rows on one axis, per-worker KV (as the API gives every curve): the all-workers curve; the shared cache of the same
 * KV in all; the replayed points. Sorted by size; a size two series share is one row.
 */
export function chartRows(b: CapacityBody, replay: ReplayBody | null): ChartRow[] {
  if (!b.per_worker || !b.curves || !b.block_size || !b.bytes_per_token) return [];
  const gbOf = (blocks: number) => (blocks * b.block_size! * b.bytes_per_token!) / 1e9;
  const rows = new Map<number, ChartRow>();
  const at = (blocks: number) => {
    let r = rows.get(blocks);
    if (!r) rows.set(blocks, (r = { blocks, gb: gbOf(blocks) }));
    return r;
  };
  for (const p of b.per_worker.points) at(p.blocks).perWorker = pct(p.hit_rate);
  const shared = b.curves.find((c) => c.scope === "shared");
  for (const p of shared?.points ?? []) at(p.blocks).shared = pct(p.hit_rate);
  for (const p of replay?.points ?? []) if (p.hit_rate !== null) at(p.blocks).replayed = pct(p.hit_rate);
  return [...rows.values()].sort((x, y) => x.blocks - y.blocks);
}

/** The per-worker capacities to replay: today's, the knee and the largest on the curve (distinct, ascending). */
export function replayTargets(b: CapacityBody): number[] {
  const pts = b.per_worker?.points ?? [];
  const largest = pts.at(-1)?.blocks ?? 0;
  const out = [b.today_blocks ?? 0, b.knee?.per_worker?.blocks ?? 0, largest].filter((v) => v > 0);
  return [...new Set(out)].sort((x, y) => x - y);
}

/** The all-workers LRU hit rate at a size on the curve (the nearest point at or below it), 0–1. */
export function lruAt(b: CapacityBody, blocks: number): number | null {
  const pts = b.per_worker?.points ?? [];
  let best: CapacityPoint | null = null;
  for (const p of pts) if (p.blocks <= blocks) best = p;
  return best?.hit_rate ?? null;
}

export type WorkerRow = {
  worker: string;
  turns: number;
  today: number | null;
  double: number | null;
  most: number | null;
};

/** Each worker's own curve at today's size, twice it, and the largest size. */
export function workerRows(b: CapacityBody): WorkerRow[] {
  const today = b.today_blocks ?? null;
  const near = (pts: CapacityPoint[], blocks: number | null) => {
    if (blocks === null) return null;
    let best: CapacityPoint | null = null;
    for (const p of pts) if (p.blocks <= blocks) best = p;
    return best?.hit_rate ?? null;
  };
  return (b.curves ?? [])
    .filter((c) => c.scope.startsWith("worker:"))
    .map((c) => ({
      worker: c.scope.slice("worker:".length),
      turns: c.turns,
      today: near(c.points, today),
      double: near(c.points, today === null ? null : 2 * today),
      most: c.points.at(-1)?.hit_rate ?? null,
    }));
}

/** The all-workers curve gains under 2 points over its last quarter. */
function flattened(b: CapacityBody): boolean {
  const pts = b.per_worker?.points ?? [];
  if (pts.length < 4) return false;
  return pts.at(-1)!.hit_rate - pts[Math.floor((pts.length - 1) * 0.75)]!.hit_rate < 0.02;
}

const gbText = (gb: number) => `${gb >= 100 ? Math.round(gb).toLocaleString("en-US") : gb.toFixed(1)} GB`;
const blocksText = (n: number) => `${n.toLocaleString("en-US")} blocks`;

/** The target's answer in sentences: per worker, with a shared cache, and with a tier behind today's device KV. */
export function answerWords(b: CapacityBody): string[] {
  const a = b.answer;
  if (!a) return [];
  const target = `${pct(a.per_worker.target)} %`;
  const out: string[] = [];
  const w = a.per_worker;
  if (!w.size)
    out.push(
      `${target} is out of reach with the recorded routing: each worker's own cache reaches ${pct(w.best)} % at the largest size shown (4× today's), ` +
        (!a.shared.size
          ? "and not even one shared cache of that size reaches it: most of the rest are blocks no turn before had sent."
          : flattened(b)
            ? "where the curve has leveled off: the rest of its misses are blocks new to that worker, which more KV does not bring back; better routing does (the shared cache below)."
            : "and it still climbs there: more than 4× today's KV per worker gets closer (capacities= in the API answers any size), or better routing (the shared cache below)."),
    );
  else {
    const more = w.more_than_today;
    out.push(
      `${target} needs ${blocksText(w.size.blocks)} (${gbText(w.size.gigabytes)}) of KV per worker` +
        (more && more.blocks > 0
          ? `: ${gbText(more.gigabytes)} (${blocksText(more.blocks)}) more GPU KV per worker than today.`
          : more
            ? ": today's capacity already reaches it."
            : "."),
    );
  }
  const s = a.shared;
  if (s.size)
    out.push(
      `With one shared cache (a perfect router) it needs ${gbText(s.size.gigabytes)} per worker (${pct(s.size.hit_rate)} % there).`,
    );
  const t = b.tiers?.answer;
  if (t && w.more_than_today && w.more_than_today.blocks > 0) {
    const c = t.cell;
    out.push(
      `Or ${gbText(t.tier_gigabytes)} of host tier per worker at ${b.tiers!.gb_per_second} GB/s behind today's GPU KV: ${pct(c.device)} % of prompt tokens from the GPU, ${pct(c.tier)} % from the tier` +
        (c.onboardMsPerTierTurn !== null
          ? `, ${Math.round(c.onboardMsPerTierTurn).toLocaleString("en-US")} ms of onboarding per turn that reads from it.`
          : "."),
    );
  }
  return out;
}

/** The tier grid as rows (device sizes) of cells (tier sizes), in GB per worker. */
export function tierRows(
  b: CapacityBody,
): { device: number; deviceGb: number; cells: (TierCell & { tierGb: number })[] }[] {
  const t = b.tiers;
  if (!t || !b.block_size || !b.bytes_per_token) return [];
  const gb = (blocks: number) => (blocks * b.block_size! * b.bytes_per_token!) / 1e9;
  return t.device_blocks.map((d) => ({
    device: d,
    deviceGb: gb(d),
    cells: t.cells.filter((c) => c.deviceBlocks === d).map((c) => ({ ...c, tierGb: gb(c.tierBlocks) })),
  }));
}

/** Per retention class: the share of the window's input tokens served at today's size and at the largest. */
export function classGains(b: CapacityBody): { name: string; today: number; most: number }[] {
  const pts = (b.per_worker?.points ?? []) as (CapacityPoint & { by_class?: Record<string, number> })[];
  if (!pts.length || !b.input_tokens) return [];
  const today = b.today_blocks ?? null;
  let at: (typeof pts)[number] | null = null;
  if (today !== null) for (const p of pts) if (p.blocks <= today) at = p;
  const last = pts.at(-1)!;
  return Object.keys(last.by_class ?? {}).map((name) => ({
    name,
    today: (at?.by_class?.[name] ?? 0) / b.input_tokens,
    most: (last.by_class?.[name] ?? 0) / b.input_tokens,
  }));
}
