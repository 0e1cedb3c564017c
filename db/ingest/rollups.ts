import type Database from "better-sqlite3";
import type { IngestRowOf } from "../rows/ingest";
import { counterDelta, minuteOf } from "../../lib/counters";
import type { CounterSample } from "../../lib/counters";
import { latencyBucket } from "../../lib/latency-buckets";
import type { TierStatements } from "./tiers";
import { clusterId, modelId } from "./clusters";

// Per-batch accumulators for the rollup tables; insertEvents writes each key once per batch.

export type Statements = {
  inserts: Map<string, Database.Statement>;
  rollup10: Database.Statement;
  rollup30: Database.Statement;
  rollup: Database.Statement;
  rollup5: Database.Statement;
  rollup15: Database.Statement;
  counterGet: Database.Statement;
  counterPut: Database.Statement;
  workerSeen: Database.Statement;
  workerUp: Database.Statement;
  workerDown: Database.Statement;
  requests1m: Database.Statement;
  ttft1m: Database.Statement;
  /** requests_scope_1m: [minute, cluster id, model id, requests, input, cached, output, preemptions]. */
  scope1m: Database.Statement;
  /** request_ttft_scope_1m: [minute, cluster id, model id, bucket, n]. */
  ttftScope1m: Database.Statement;
  itl1m: Database.Statement;
  decisions1m: Database.Statement;
  decisions15: Database.Statement;
  tiers: TierStatements;
};

/** The best candidate's overlap and the chosen worker's (in blocks) of a routing decision. */
export function overlaps(e: IngestRowOf<"route.decision">): { best: number; chosen: number } {
  let best = 0;
  let chosen = 0;
  for (const c of e.candidates) {
    if (c.overlap_blocks > best) best = c.overlap_blocks;
    if (c.worker_id === e.chosen_worker_id) chosen = c.overlap_blocks;
  }
  return { best, chosen };
}

export type Rollup = {
  samples: number;
  kvActiveSum: number;
  kvActiveMax: number;
  kvTotalSum: number;
  runningSum: number;
  runningMax: number;
  waitingSum: number;
  waitingMax: number;
  queryDelta: number;
  hitDelta: number;
  resets: number;
  utilMax: number;
  /** Cumulative preemption counter extremes in the bucket; null when not reported. */
  preemptMin: number | null;
  preemptMax: number | null;
  batchSum: number;
  batchSamples: number;
};

const TEN_SECONDS = 10_000;
/** The 30-second rollup's bucket (ms); PostgreSQL's chart chunks map its buckets (db/pg/chart-chunks.ts). */
export const HALF_MINUTE = 30_000;
const MINUTE = 60_000;
const FIVE_MINUTES = 300_000;
const QUARTER_HOUR = 900_000;

/** Worker rollups of a batch summed into coarser rows of `step` ms (same shape; `m` is the bucket start). */
export function coarsen(
  rows: Iterable<Rollup & { w: string; m: number }>,
  step = QUARTER_HOUR,
): (Rollup & { w: string; m: number })[] {
  const out = new Map<string, Rollup & { w: string; m: number }>();
  for (const r of rows) {
    const m = r.m - (r.m % step);
    const k = `${r.w}\u0000${m}`;
    const c = out.get(k);
    if (c) mergeRollup(c, r);
    else out.set(k, { ...r, m });
  }
  return [...out.values()];
}

/** Add rollup `r` into `into`: sums add, maxima take the larger. */
function mergeRollup(into: Rollup, r: Rollup): void {
  into.samples += r.samples;
  into.kvActiveSum += r.kvActiveSum;
  into.kvActiveMax = Math.max(into.kvActiveMax, r.kvActiveMax);
  into.kvTotalSum += r.kvTotalSum;
  into.runningSum += r.runningSum;
  into.runningMax = Math.max(into.runningMax, r.runningMax);
  into.waitingSum += r.waitingSum;
  into.waitingMax = Math.max(into.waitingMax, r.waitingMax);
  into.queryDelta += r.queryDelta;
  into.hitDelta += r.hitDelta;
  into.resets += r.resets;
  into.utilMax = Math.max(into.utilMax, r.utilMax);
  into.preemptMin =
    r.preemptMin === null
      ? into.preemptMin
      : into.preemptMin === null
        ? r.preemptMin
        : Math.min(into.preemptMin, r.preemptMin);
  into.preemptMax =
    r.preemptMax === null
      ? into.preemptMax
      : into.preemptMax === null
        ? r.preemptMax
        : Math.max(into.preemptMax, r.preemptMax);
  into.batchSum += r.batchSum;
  into.batchSamples += r.batchSamples;
}

/** Per-minute request and routing rollups of one batch, written with one upsert per key. */
export class MinuteRollups {
  private requests = new Map<
    number,
    {
      m: number;
      requests: number;
      input: number;
      cached: number;
      output: number;
      host: number;
      disk: number;
      shared: number;
      prefetched: number;
      preemptions: number;
    }
  >();
  private ttft = new Map<string, [number, number, number]>();
  private scope = new Map<string, [number, number, number, number, number, number, number, number]>();
  private ttftScope = new Map<string, [number, number, number, number, number]>();
  private itl = new Map<string, [number, string, number, number, number]>();
  private decisions = new Map<string, { m: number; w: string; decisions: number; prompt: number; lost: number }>();

  addRequest(e: IngestRowOf<"request">) {
    const m = minuteOf(e.arrived_at);
    let r = this.requests.get(m);
    if (!r)
      this.requests.set(
        m,
        (r = {
          m,
          requests: 0,
          input: 0,
          cached: 0,
          output: 0,
          host: 0,
          disk: 0,
          shared: 0,
          prefetched: 0,
          preemptions: 0,
        }),
      );
    r.requests++;
    r.input += e.input_tokens;
    r.cached += e.cached_tokens;
    r.output += e.output_tokens;
    r.host += e.cached_tokens_by_tier?.host ?? 0;
    r.disk += e.cached_tokens_by_tier?.disk ?? 0;
    r.shared += e.cached_tokens_by_tier?.shared ?? 0;
    r.prefetched += e.prefetched_tokens ?? 0;
    r.preemptions += e.preemptions ?? 0;
    const c = clusterId(e.cluster);
    const mid = modelId(e.model);
    const sk = `${m}:${c}:${mid}`;
    const sr = this.scope.get(sk);
    if (sr) {
      sr[3]++;
      sr[4] += e.input_tokens;
      sr[5] += e.cached_tokens;
      sr[6] += e.output_tokens;
      sr[7] += e.preemptions ?? 0;
    } else this.scope.set(sk, [m, c, mid, 1, e.input_tokens, e.cached_tokens, e.output_tokens, e.preemptions ?? 0]);
    if (e.itl_ms_mean !== undefined) this.addItl(m, e.worker_id ?? "", 0, e.itl_ms_mean);
    if (e.itl_ms_p95 !== undefined) this.addItl(m, e.worker_id ?? "", 1, e.itl_ms_p95);
    if (e.first_token_at === undefined) return;
    const b = latencyBucket(e.first_token_at - e.arrived_at);
    const k = `${m}:${b}`;
    const h = this.ttft.get(k);
    if (h) h[2]++;
    else this.ttft.set(k, [m, b, 1]);
    const hk = `${sk}:${b}`;
    const hs = this.ttftScope.get(hk);
    if (hs) hs[4]++;
    else this.ttftScope.set(hk, [m, c, mid, b, 1]);
  }

  private addItl(m: number, w: string, stat: number, ms: number) {
    const b = latencyBucket(ms);
    const k = `${m}:${w}:${stat}:${b}`;
    const h = this.itl.get(k);
    if (h) h[4]++;
    else this.itl.set(k, [m, w, stat, b, 1]);
  }

  addDecision(e: IngestRowOf<"route.decision">) {
    const m = minuteOf(e.ts);
    const k = `${e.chosen_worker_id}\u0000${m}`;
    let d = this.decisions.get(k);
    if (!d) this.decisions.set(k, (d = { m, w: e.chosen_worker_id, decisions: 0, prompt: 0, lost: 0 }));
    const { best, chosen } = overlaps(e);
    d.decisions++;
    d.prompt += e.prompt_blocks;
    d.lost += best - chosen;
  }

  flush(st: Statements) {
    for (const r of this.requests.values()) st.requests1m.run(r);
    for (const h of this.ttft.values()) st.ttft1m.run(h);
    for (const r of this.scope.values()) st.scope1m.run(r);
    for (const h of this.ttftScope.values()) st.ttftScope1m.run(h);
    for (const h of this.itl.values()) st.itl1m.run(h);
    for (const d of this.decisions.values()) st.decisions1m.run(d);
    const coarse = new Map<string, { m: number; w: string; decisions: number; prompt: number; lost: number }>();
    for (const d of this.decisions.values()) {
      const m = d.m - (d.m % QUARTER_HOUR);
      const k = `${d.w}\u0000${m}`;
      const c = coarse.get(k);
      if (!c) coarse.set(k, { ...d, m });
      else {
        c.decisions += d.decisions;
        c.prompt += d.prompt;
        c.lost += d.lost;
      }
    }
    for (const d of coarse.values()) st.decisions15.run(d);
  }
}

export function noteSeen(
  seen: Map<string, { first: number; last: number; kvTotal: number }>,
  w: string,
  ts: number,
  kvTotal: number,
) {
  const s = seen.get(w);
  if (!s) seen.set(w, { first: ts, last: ts, kvTotal });
  else {
    if (ts < s.first) s.first = ts;
    if (ts >= s.last) {
      s.last = ts;
      s.kvTotal = kvTotal;
    }
  }
}

/** Write a batch's 10-second worker rollups, and the 30-second, 1-, 5- and 15-minute rows summed from them, one upsert per key. */
export function flushStats(rollups: Map<string, Rollup & { w: string; m: number }>, st: Statements): void {
  for (const r of rollups.values()) st.rollup10.run(r);
  const halves = coarsen(rollups.values(), HALF_MINUTE);
  for (const r of halves) st.rollup30.run(r);
  const minutes = coarsen(halves, MINUTE);
  for (const r of minutes) st.rollup.run(r);
  for (const r of coarsen(minutes, FIVE_MINUTES)) st.rollup5.run(r);
  for (const r of coarsen(minutes, QUARTER_HOUR)) st.rollup15.run(r);
}

/** Add one sample to the batch's 10-second rollup of its worker (counter delta against the worker's previous sample). */
export function addSample(
  rollups: Map<string, Rollup & { w: string; m: number }>,
  counters: Map<string, CounterSample | undefined>,
  st: Statements,
  e: IngestRowOf<"worker.stats">,
) {
  const w = e.worker_id;
  if (!counters.has(w)) counters.set(w, st.counterGet.get(w) as CounterSample | undefined);
  const prev = counters.get(w);
  const next = { ts: e.ts, query: e.prefix_query_tokens, hit: e.prefix_hit_tokens };
  const delta = counterDelta(prev, next);
  if (!prev || e.ts > prev.ts) counters.set(w, next);
  const m = e.ts - (e.ts % TEN_SECONDS);
  const k = `${w}\u0000${m}`;
  let r = rollups.get(k);
  if (!r) {
    r = {
      w,
      m,
      samples: 0,
      kvActiveSum: 0,
      kvActiveMax: 0,
      kvTotalSum: 0,
      runningSum: 0,
      runningMax: 0,
      waitingSum: 0,
      waitingMax: 0,
      queryDelta: 0,
      hitDelta: 0,
      resets: 0,
      utilMax: 0,
      preemptMin: null,
      preemptMax: null,
      batchSum: 0,
      batchSamples: 0,
    };
    rollups.set(k, r);
  }
  const active = e.kv_active_blocks;
  const preempted = e.preemptions === undefined ? null : Math.min(Number(e.preemptions), Number.MAX_SAFE_INTEGER);
  mergeRollup(r, {
    samples: 1,
    kvActiveSum: active,
    kvActiveMax: active,
    kvTotalSum: e.kv_total_blocks,
    runningSum: e.requests_running,
    runningMax: e.requests_running,
    waitingSum: e.requests_waiting,
    waitingMax: e.requests_waiting,
    queryDelta: delta?.query ?? 0,
    hitDelta: delta?.hit ?? 0,
    resets: delta?.reset ? 1 : 0,
    utilMax: e.kv_total_blocks > 0 ? active / e.kv_total_blocks : 0,
    preemptMin: preempted,
    preemptMax: preempted,
    batchSum: e.batch_tokens ?? 0,
    batchSamples: e.batch_tokens === undefined ? 0 : 1,
  });
}
