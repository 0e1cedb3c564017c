// bench:queries' data: 24 h (BENCH_HOURS) of 5-second stats (BENCH_INTERVAL_SECONDS) for 64 workers (BENCH_WORKERS),
// 2 routed requests/s and KV churn, stored in SQLite batch by batch and handed to the other engine's loader alongside.
// BENCH_CLUSTERS=N makes N clusters of that many workers each (`cluster-0`, …; the first is `default`), each with its
// own 2 routed requests/s, and two models (even clusters `bench`, odd ones `bench-b`).
import type { Db } from "../db/sqlite/client";
import { insertEvents } from "../db/sqlite/ingest";
import { keyWorkers, type TelemetryEvent } from "../server/ingest/events";
import { workerKey } from "../lib/worker-key";

export const WORKERS = Number(process.env.BENCH_WORKERS ?? 64);
export const HOURS = Number(process.env.BENCH_HOURS ?? 24);
export const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_SECONDS ?? 5) * 1000;
export const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 1);
/** Cluster c's name (the first is the default cluster). */
export const clusterOf = (c: number) => (c === 0 ? "default" : `cluster-${c}`);
const modelOf = (c: number) => (c % 2 === 0 ? "bench" : "bench-b");
const BATCH_SECONDS = 600;
const CLASSES = ["system_prompt", "tool_definitions", "conversation", "subagent_state"];
const REASONS = ["capacity", "capacity", "capacity", "ttl", "agent_end", "session_end"] as const;

type Ev<K extends TelemetryEvent["kind"]> = Extract<TelemetryEvent, { kind: K }>;

let seed = 7;
/** mulberry32: consecutive draws are independent enough that picks do not correlate. */
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
const hashes = (n: number) =>
  Array.from({ length: n }, () => String(Math.floor(rnd() * 2 ** 31) * 4096 + Math.floor(rnd() * 4096)));

/** Each cluster's workers 0..n-5 run all day; its last four join after a quarter of the range and leave after three quarters. */
function isUp(w: number, t: number, start: number, span: number): boolean {
  return w % WORKERS < WORKERS - 4 || (t >= start + span / 4 && t < start + (3 * span) / 4);
}

export type Sample = (
  workerId: string,
  ts: number,
  kvActive: number,
  kvTotal: number,
  query: string,
  hit: string,
) => void;

export async function load(
  db: Db,
  start: number,
  end: number,
  onSample: Sample,
  onBatch?: (batch: readonly TelemetryEvent[]) => Promise<void>,
) {
  const all = Array.from({ length: WORKERS * CLUSTERS }, (_, w) => `worker-${String(w % WORKERS).padStart(2, "0")}`);
  const clusterOfWorker = (w: number) => Math.floor(w / WORKERS);
  // Events as a sender's cluster names them, stored under each worker's key (as the ingest seam does).
  const own = <E extends TelemetryEvent>(e: E, c: number): E =>
    c === 0 ? e : (keyWorkers({ ...e, cluster: clusterOf(c) }) as E);
  const keys = all.map((id, w) => workerKey(clusterOf(clusterOfWorker(w)), id));
  const ids = all;
  const counters = ids.map(() => ({ q: 0, h: 0 }));
  const baseRate = ids.map((_, w) => 0.45 + (0.5 * ((w * 37) % 64)) / 64);
  const span = end - start;
  let samples = 0;
  for (let b = start; b < end; b += BATCH_SECONDS * 1000) {
    const batch: TelemetryEvent[] = [];
    for (let t = b; t < Math.min(end, b + BATCH_SECONDS * 1000); t += 1000) {
      const upIdx = ids.map((_, w) => w).filter((w) => isUp(w, t, start, span));
      ids.forEach((id, w) => {
        const c = clusterOfWorker(w);
        const wasUp = t > start && isUp(w, t - 1000, start, span);
        const nowUp = isUp(w, t, start, span);
        if (nowUp && !wasUp)
          batch.push(
            own(
              {
                id: `${keys[w]}-up-${t}`,
                kind: "worker.up",
                ts: t,
                worker_id: id,
                role: w % 4 === 0 ? "prefill" : "decode",
                model: modelOf(c),
                kv_total_blocks: 8192,
                block_size: 16,
              } satisfies Ev<"worker.up">,
              c,
            ),
          );
        if (!nowUp && wasUp)
          batch.push(
            own(
              {
                id: `${keys[w]}-down-${t}`,
                kind: "worker.down",
                ts: t,
                worker_id: id,
                reason: "scaled down",
              } satisfies Ev<"worker.down">,
              c,
            ),
          );
        if (!nowUp || (t - start) % INTERVAL_MS !== 0) return;
        const cw = counters[w]!;
        const q = Math.floor(rnd() * 20_000);
        cw.q += q;
        const rate = baseRate[w % WORKERS]!;
        cw.h += Math.floor(q * Math.min(1, rate + 0.1 * Math.sin((t / 3_600_000) * 2 + w)));
        const util = 0.55 + 0.35 * Math.sin(t / 5_400_000 + w / 3) + 0.05 * rnd();
        const active = Math.floor(8192 * Math.max(0, Math.min(1, util)));
        batch.push(
          own(
            {
              id: `${keys[w]}-s-${t}`,
              kind: "worker.stats",
              ts: t,
              worker_id: id,
              kv_active_blocks: active,
              kv_total_blocks: 8192,
              requests_running: Math.floor(rnd() * 24),
              requests_waiting: Math.floor(rnd() * 4),
              prefix_query_tokens: String(cw.q),
              prefix_hit_tokens: String(cw.h),
            } satisfies Ev<"worker.stats">,
            c,
          ),
        );
        onSample(keys[w]!, t, active, 8192, String(cw.q), String(cw.h));
        samples++;
      });
      for (let c = 0; c < CLUSTERS; c++) {
        const upNow = upIdx.filter((w) => clusterOfWorker(w) === c).map((w) => ids[w]!);
        const tag = c === 0 ? "" : `c${c}-`;
        for (let k = 0; k < 2; k++) {
          const cands = Array.from({ length: 8 }, () => pick(upNow)).filter((x, i, a) => a.indexOf(x) === i);
          const chosen = cands[0]!;
          const rid = `r-${tag}${t}-${k}`;
          batch.push(
            own(
              {
                id: `rd-${rid}`,
                kind: "route.decision",
                ts: t,
                request_id: rid,
                session_id: `s-${tag}${Math.floor(rnd() * 400)}`,
                prompt_blocks: 64,
                chosen_worker_id: chosen,
                candidates: cands.map((worker_id) => ({
                  worker_id,
                  overlap_blocks: Math.floor(rnd() * 64),
                  prefill_blocks: 64,
                  decode_blocks: Math.floor(rnd() * 500),
                  cost: rnd() * 600,
                })),
                overlap_credit: 1,
                prefill_load_scale: 1,
                temperature: 0,
              } satisfies Ev<"route.decision">,
              c,
            ),
          );
          batch.push(
            own(
              {
                id: `rq-${rid}`,
                kind: "request",
                ts: t,
                request_id: rid,
                api: "messages",
                model: modelOf(c),
                worker_id: chosen,
                arrived_at: t,
                first_token_at: t + 150,
                finished_at: t + 900,
                input_tokens: 40_000,
                cached_tokens: 30_000,
                output_tokens: 300,
                status: "ok",
              } satisfies Ev<"request">,
              c,
            ),
          );
        }
        batch.push(
          own(
            {
              id: `ks-${tag}${t}`,
              kind: "kv.stored",
              ts: t,
              worker_id: pick(upNow),
              block_hashes: hashes(16),
              parent_hash: null,
              retention_class: pick(CLASSES),
            } satisfies Ev<"kv.stored">,
            c,
          ),
        );
        if (t % 2000 === 0)
          batch.push(
            own(
              {
                id: `kr-${tag}${t}`,
                kind: "kv.removed",
                ts: t,
                worker_id: pick(upNow),
                block_hashes: hashes(16),
                reason: pick(REASONS),
              } satisfies Ev<"kv.removed">,
              c,
            ),
          );
      }
    }
    insertEvents(db, batch);
    await onBatch?.(batch);
  }
  return { samples, workers: keys };
}
