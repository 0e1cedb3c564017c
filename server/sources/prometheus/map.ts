import type { Exposition, Family, Labels } from "./parse";
import type { PrometheusSourceConfig, ScrapeKind } from "../../../lib/sources/prometheus-config";
import { DYNAMO_FRONTEND, DYNAMO_WORKER, EXPECTED, SGLANG, VLLM, detectKind, type MetricRef } from "./metric-names";
import { readKvbm, type KvbmReading } from "./kvbm";
import {
  bucketIncrease,
  counterIncrease,
  histogramQuantile,
  mergeBuckets,
  ratePerSecond,
  type Buckets,
} from "./series-math";
import { SCRAPE_MAX_WORKERS } from "../../../lib/memory-bounds";

/** Carried between scrapes of one target: the previous counters and histograms, and synthesized prefix counters. */
export type ScrapeState = {
  at: number | null;
  counters: Record<string, number>;
  histograms: Record<string, Buckets>;
  prefix: Record<string, { query: number; hit: number }>;
};
export const emptyState = (): ScrapeState => ({ at: null, counters: {}, histograms: {}, prefix: {} });

/** Request-level numbers over the interval since the previous scrape (null until two scrapes, or when not served). */
export type Aggregates = {
  requests_per_s: number | null;
  ttft_p50_s: number | null;
  ttft_p95_s: number | null;
  itl_p50_s: number | null;
  itl_p95_s: number | null;
  prefix_hit_rate: number | null;
  queued: number | null;
  inflight: number | null;
};

export type WorkerStatsEvent = {
  id: string;
  kind: "worker.stats";
  ts: number;
  source: string;
  worker_id: string;
  kv_active_blocks: number;
  kv_total_blocks: number;
  requests_running: number;
  requests_waiting: number;
  prefix_query_tokens: string;
  prefix_hit_tokens: string;
  /** Cumulative preemptions (vLLM num_preemptions, SGLang retractions), when served. */
  preemptions?: string;
};

export type MapResult = {
  kind: Exclude<ScrapeKind, "auto"> | null;
  events: WorkerStatsEvent[];
  aggregates: Aggregates;
  missing: string[];
  renamed: string[];
  notes: string[];
  state: ScrapeState;
  /** KVBM tier movements and hit rates when the scrape serves them, for the worker `kvbm_worker`. */
  kvbm: KvbmReading | null;
  kvbm_worker: string;
};

/** Used when a target does not say how many KV blocks it has: utilization is kept, block counts are nominal. */
export const NOMINAL_TOTAL_BLOCKS = 10_000;
const MAX_BLOCKS = 1_000_000_000;

type Reading = {
  workerId: string;
  usage?: number;
  active?: number;
  total?: number;
  running?: number;
  waiting?: number;
  queries?: number;
  hits?: number;
  hitRate?: number;
  prompt?: number;
  preemptions?: number;
};
type Ctx = { ex: Exposition; seen: Set<string>; renamed: Set<string>; notes: string[] };

/** Map one parsed scrape to worker.stats events and request aggregates. Pure: time and previous state passed in. */
export function mapScrape(
  ex: Exposition,
  config: PrometheusSourceConfig,
  sourceId: string,
  at: number,
  prev: ScrapeState,
): MapResult {
  const kind = config.kind === "auto" ? detectKind(ex.families.keys()) : config.kind;
  const ctx: Ctx = { ex, seen: new Set(), renamed: new Set(), notes: [] };
  // Synthesized counters of workers this target no longer reports are carried forward, up to SCRAPE_MAX_WORKERS ids:
  // past that, only the ones written by this scrape are kept.
  const carried = Object.keys(prev.prefix).length < SCRAPE_MAX_WORKERS ? { ...prev.prefix } : {};
  const state: ScrapeState = { at, counters: {}, histograms: {}, prefix: carried };
  const elapsed = prev.at === null ? 0 : at - prev.at;
  const aggregates: Aggregates = {
    requests_per_s: null,
    ttft_p50_s: null,
    ttft_p95_s: null,
    itl_p50_s: null,
    itl_p95_s: null,
    prefix_hit_rate: null,
    queued: null,
    inflight: null,
  };
  const base = config.worker_id ?? config.labels?.worker_id ?? hostOf(config.url);
  const kvbm = readKvbm(ex, elapsed, prev.counters, state.counters);
  const tiers = { kvbm, kvbm_worker: base };
  if (!kind)
    return {
      kind,
      events: [],
      aggregates,
      missing: [],
      renamed: [],
      notes: ["no dynamo_frontend_*, dynamo_component_*, kvbm_*, vllm:* or sglang:* families: kind not detected"],
      state,
      ...tiers,
    };
  if (kind === "kvbm") return { kind, events: [], aggregates, missing: [], renamed: [], notes: [], state, ...tiers };

  const counterRate = (key: string, value: number | undefined) => {
    if (value === undefined) return null;
    state.counters[key] = value;
    return ratePerSecond(counterIncrease(prev.counters[key], value), elapsed);
  };
  const quantiles = (key: string, ref: MetricRef, filter?: Labels) => {
    const current = histogramBuckets(ctx, ref, filter);
    if (!current) return [null, null] as const;
    state.histograms[key] = current;
    if (prev.at === null) return [null, null] as const;
    const delta = bucketIncrease(prev.histograms[key], current);
    return [histogramQuantile(0.5, delta), histogramQuantile(0.95, delta)] as const;
  };

  let readings: Reading[] = [];
  const spec =
    kind === "vllm" ? VLLM : kind === "sglang" ? SGLANG : kind === "dynamo-worker" ? DYNAMO_WORKER : DYNAMO_FRONTEND;
  if (kind === "vllm" || kind === "sglang" || kind === "dynamo-worker") {
    const engine =
      kind === "dynamo-worker"
        ? ex.families.has(VLLM.running.names[0]!)
          ? "vllm"
          : ex.families.has(SGLANG.running.names[0]!)
            ? "sglang"
            : null
        : kind;
    const engineReadings =
      engine === "vllm" ? vllmReadings(ctx, base) : engine === "sglang" ? [sglangReading(ctx, base)] : [];
    readings = kind === "dynamo-worker" ? [dynamoWorkerReading(ctx, base, engineReadings)] : engineReadings;
    const engineSpec = engine === "sglang" ? SGLANG : VLLM;
    aggregates.requests_per_s = counterRate(
      "requests",
      sum(
        ctx,
        kind === "dynamo-worker" ? DYNAMO_WORKER.requests : engine === "sglang" ? SGLANG.requests : VLLM.requests,
      ),
    );
    [aggregates.ttft_p50_s, aggregates.ttft_p95_s] = quantiles("ttft", engineSpec.ttft);
    [aggregates.itl_p50_s, aggregates.itl_p95_s] = quantiles("itl", engineSpec.itl);
    aggregates.inflight = sumOrNull(readings.map((r) => r.running));
    aggregates.queued = sumOrNull(readings.map((r) => r.waiting));
  } else {
    aggregates.requests_per_s = counterRate("requests", sum(ctx, DYNAMO_FRONTEND.requests));
    [aggregates.ttft_p50_s, aggregates.ttft_p95_s] = quantiles("ttft", DYNAMO_FRONTEND.ttft);
    [aggregates.itl_p50_s, aggregates.itl_p95_s] = quantiles("itl", DYNAMO_FRONTEND.itl);
    aggregates.queued = sum(ctx, DYNAMO_FRONTEND.queued) ?? null;
    aggregates.inflight = sum(ctx, DYNAMO_FRONTEND.inflight) ?? null;
    const input = histogramSum(ctx, DYNAMO_FRONTEND.input);
    const cached = histogramSum(ctx, DYNAMO_FRONTEND.cached);
    const inputDelta =
      input === undefined ? null : ((state.counters.input = input), counterIncrease(prev.counters.input, input));
    const cachedDelta =
      cached === undefined ? null : ((state.counters.cached = cached), counterIncrease(prev.counters.cached, cached));
    if (inputDelta !== null && cachedDelta !== null && inputDelta > 0)
      aggregates.prefix_hit_rate = Math.min(1, cachedDelta / inputDelta);
  }

  const events: WorkerStatsEvent[] = [];
  let hitDelta = 0;
  let queryDelta = 0;
  for (const r of readings) {
    const event = toStatsEvent(r, sourceId, at, prev, state, ctx);
    if (!event) continue;
    events.push(event);
    const before = prev.prefix[r.workerId];
    if (before) {
      queryDelta += counterIncrease(before.query, Number(event.prefix_query_tokens)) ?? 0;
      hitDelta += counterIncrease(before.hit, Number(event.prefix_hit_tokens)) ?? 0;
    }
  }
  if (kind !== "dynamo-frontend") {
    if (queryDelta > 0) aggregates.prefix_hit_rate = Math.min(1, hitDelta / queryDelta);
    else aggregates.prefix_hit_rate = meanOrNull(readings.map((r) => r.hitRate));
  }
  return {
    kind,
    events,
    aggregates,
    missing: missingOf(ex, spec),
    renamed: [...ctx.renamed],
    notes: ctx.notes,
    state,
    ...tiers,
  };
}

function toStatsEvent(
  r: Reading,
  sourceId: string,
  at: number,
  prev: ScrapeState,
  state: ScrapeState,
  ctx: Ctx,
): WorkerStatsEvent | null {
  const usage = r.usage !== undefined ? (r.usage > 1 ? r.usage / 100 : r.usage) : undefined;
  let total = r.total;
  if (total === undefined && usage !== undefined) {
    total = NOMINAL_TOTAL_BLOCKS;
    ctx.notes.push(
      `${r.workerId}: KV block count not served; utilization shown against ${NOMINAL_TOTAL_BLOCKS} nominal blocks`,
    );
  }
  const active = r.active ?? (usage !== undefined && total !== undefined ? usage * total : undefined);
  if (total === undefined || active === undefined || r.running === undefined) {
    ctx.notes.push(`${r.workerId}: no worker.stats (KV usage or running requests not served)`);
    return null;
  }
  const before = prev.prefix[r.workerId] ?? { query: 0, hit: 0 };
  let query = before.query;
  let hit = before.hit;
  if (r.queries !== undefined && r.hits !== undefined) {
    query = r.queries;
    hit = Math.min(r.hits, r.queries);
  } else if (r.prompt !== undefined && r.hitRate !== undefined) {
    const key = `prompt|${r.workerId}`;
    state.counters[key] = r.prompt;
    const grown = counterIncrease(prev.counters[key], r.prompt) ?? 0;
    query = before.query + grown;
    hit = before.hit + Math.round(grown * Math.min(1, Math.max(0, r.hitRate)));
  }
  state.prefix[r.workerId] = { query, hit };
  const totalBlocks = Math.min(MAX_BLOCKS, Math.max(0, Math.round(total)));
  return {
    id: eventId(sourceId, r.workerId, at),
    kind: "worker.stats",
    ts: at,
    source: sourceId,
    worker_id: r.workerId,
    kv_active_blocks: Math.min(totalBlocks, Math.max(0, Math.round(active))),
    kv_total_blocks: totalBlocks,
    requests_running: Math.max(0, Math.round(r.running)),
    requests_waiting: Math.max(0, Math.round(r.waiting ?? 0)),
    prefix_query_tokens: counterText(query),
    prefix_hit_tokens: counterText(hit),
    ...(r.preemptions !== undefined ? { preemptions: counterText(r.preemptions) } : {}),
  };
}

function vllmReadings(ctx: Ctx, base: string): Reading[] {
  const engines = new Set<string>();
  for (const ref of [VLLM.usage, VLLM.running])
    for (const s of family(ctx, ref)?.samples ?? []) if (s.labels.engine !== undefined) engines.add(s.labels.engine);
  const groups =
    engines.size > 1
      ? [...engines].sort().map((e) => ({ id: `${base}-e${e}`, filter: { engine: e } as Labels }))
      : [{ id: base, filter: undefined }];
  const info = family(ctx, VLLM.cacheConfig)?.samples[0]?.labels;
  const gpuBlocks = info?.num_gpu_blocks !== undefined ? Number(info.num_gpu_blocks) : undefined;
  return groups.map(({ id, filter }) => ({
    workerId: id,
    usage: mean(ctx, VLLM.usage, filter),
    total: gpuBlocks !== undefined && Number.isFinite(gpuBlocks) && gpuBlocks > 0 ? gpuBlocks : undefined,
    running: sum(ctx, VLLM.running, filter),
    waiting: sum(ctx, VLLM.waiting, filter),
    queries: sum(ctx, VLLM.queries, filter),
    hits: sum(ctx, VLLM.hits, filter),
    hitRate: mean(ctx, VLLM.hitRate, filter),
    preemptions: sum(ctx, VLLM.preemptions, filter),
  }));
}

function sglangReading(ctx: Ctx, base: string): Reading {
  const capacity = sum(ctx, SGLANG.capacity);
  return {
    workerId: base,
    usage: mean(ctx, SGLANG.usage),
    total: capacity !== undefined && capacity > 0 ? capacity : undefined,
    running: sum(ctx, SGLANG.running),
    waiting: sum(ctx, SGLANG.waiting),
    prompt: sum(ctx, SGLANG.prompt),
    queries: ctx.ex.families.has(SGLANG.cached.names[0]!) ? sum(ctx, SGLANG.prompt) : undefined,
    hits: sum(ctx, SGLANG.cached),
    hitRate: mean(ctx, SGLANG.hitRate),
    preemptions: sum(ctx, SGLANG.preemptions),
  };
}

function dynamoWorkerReading(ctx: Ctx, base: string, engine: Reading[]): Reading {
  const e = engine.length === 1 ? engine[0] : undefined;
  const generate = family(ctx, DYNAMO_WORKER.running)?.samples.some((s) => s.labels.dynamo_endpoint === "generate")
    ? { dynamo_endpoint: "generate" }
    : undefined;
  return {
    workerId: base,
    usage: mean(ctx, DYNAMO_WORKER.usage) ?? e?.usage,
    total: sum(ctx, DYNAMO_WORKER.total) ?? e?.total,
    active: sum(ctx, DYNAMO_WORKER.active),
    running: sum(ctx, DYNAMO_WORKER.running, generate) ?? e?.running,
    waiting: e?.waiting,
    queries: e?.queries,
    hits: e?.hits,
    prompt: e?.prompt,
    hitRate: mean(ctx, DYNAMO_WORKER.hitRate) ?? e?.hitRate,
  };
}

/** The family serving a logical metric (newest name first); records an older name in use as a rename. */
function family(ctx: Ctx, ref: MetricRef): Family | undefined {
  for (const [i, name] of ref.names.entries()) {
    const f = ctx.ex.families.get(name);
    if (!f) continue;
    ctx.seen.add(name);
    if (i > 0) ctx.renamed.add(`${name} (older name of ${ref.names[0]})`);
    return f;
  }
  return undefined;
}

function finiteValues(ctx: Ctx, ref: MetricRef, filter?: Labels): number[] | undefined {
  const f = family(ctx, ref);
  if (!f) return undefined;
  const values: number[] = [];
  for (const s of f.samples) {
    if (filter && Object.entries(filter).some(([k, v]) => s.labels[k] !== v)) continue;
    if (Number.isFinite(s.value)) values.push(s.value);
    else ctx.notes.push(`${f.name}: ${s.value} ignored`);
  }
  return values.length ? values : undefined;
}

function sum(ctx: Ctx, ref: MetricRef, filter?: Labels): number | undefined {
  return finiteValues(ctx, ref, filter)?.reduce((a, b) => a + b, 0);
}

function mean(ctx: Ctx, ref: MetricRef, filter?: Labels): number | undefined {
  const v = finiteValues(ctx, ref, filter);
  return v ? v.reduce((a, b) => a + b, 0) / v.length : undefined;
}

function histogramBuckets(ctx: Ctx, ref: MetricRef, filter?: Labels): Buckets | undefined {
  const f = family(ctx, ref);
  const hs = f?.histograms.filter((h) => !filter || Object.entries(filter).every(([k, v]) => h.labels[k] === v));
  return hs && hs.length ? mergeBuckets(hs.map((h) => h.buckets)) : undefined;
}

function histogramSum(ctx: Ctx, ref: MetricRef): number | undefined {
  const f = family(ctx, ref);
  if (!f || f.histograms.length === 0) return undefined;
  const total = f.histograms.reduce((a, h) => a + (Number.isFinite(h.sum) ? h.sum : 0), 0);
  return total;
}

/** Required metrics of a kind that none of their names serve, by their newest name. */
export function missingOf(ex: Exposition, spec: Record<string, MetricRef>): string[] {
  return Object.values(spec)
    .filter((ref) => ref.required && !ref.names.some((n) => ex.families.has(n)))
    .map((ref) => ref.names[0]!);
}

export { EXPECTED };

const sumOrNull = (values: (number | undefined)[]) =>
  values.some((v) => v !== undefined) ? values.reduce<number>((a, v) => a + (v ?? 0), 0) : null;
const meanOrNull = (values: (number | undefined)[]) => {
  const v = values.filter((x): x is number => x !== undefined);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};

function counterText(value: number): string {
  if (!Number.isFinite(value) || value <= 0) return "0";
  return BigInt(Math.min(Math.floor(value), Number.MAX_SAFE_INTEGER)).toString();
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "target";
  }
}

function eventId(sourceId: string, workerId: string, at: number): string {
  const id = `${sourceId}:${workerId}:${at}`;
  return id.length <= 128 ? id : `${id.slice(0, 100)}:${at}`;
}
