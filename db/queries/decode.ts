import type { Db } from "../client";
import { minuteOf } from "../../server/analysis/counters";
import { histogramQuantile, type HistogramEntry } from "../../server/analysis/histogram";
import { quantileSorted } from "../../server/analysis/quantile";
import { useRollups } from "./rollups";

// Decode-side telemetry: inter-token latency and preemptions, cluster-wide or for one worker. ITL p50 is the
// median of the requests' mean ITL, ITL p95 the 95th percentile of their p95 ITL; exact from raw rows up to an
// hour, from the per-minute histograms (within ~5%) beyond.

export type DecodeStats = {
  itlP50Ms: number | null;
  itlP95Ms: number | null;
  preemptions: number;
  preemptedRequests: number;
};

const MAX_RAW = 200_000;

/** ITL p50/p95 (ms; null without decoding requests) and preemptions of requests that arrived in [from, to), optionally on one worker. */
export function decodeStats(db: Db, from: number, to: number, workerId?: string): DecodeStats {
  if (useRollups(from, to, 60_000)) return rolledDecodeStats(db, from, to, workerId);
  const where = `arrived_at >= @from AND arrived_at < @to${workerId === undefined ? "" : " AND worker_id = @w"}`;
  const args = { from, to, w: workerId ?? null };
  const col = (c: string) =>
    db.$client
      .prepare(`SELECT ${c} FROM requests WHERE ${where} AND ${c} IS NOT NULL ORDER BY 1 LIMIT ${MAX_RAW}`)
      .pluck()
      .all(args) as number[];
  const p = db.$client
    .prepare(
      `SELECT coalesce(sum(preemptions), 0) AS preemptions, count(preemptions) AS preempted FROM requests WHERE ${where} AND preemptions > 0`,
    )
    .get(args) as { preemptions: number; preempted: number };
  return {
    itlP50Ms: quantileSorted(col("itl_ms_mean"), 0.5),
    itlP95Ms: quantileSorted(col("itl_ms_p95"), 0.95),
    preemptions: p.preemptions,
    preemptedRequests: p.preempted,
  };
}

function rolledDecodeStats(db: Db, from: number, to: number, workerId?: string): DecodeStats {
  const hist = (stat: number) =>
    db.$client
      .prepare(
        `SELECT bucket, sum(n) AS n FROM request_itl_1m WHERE minute >= ? AND minute < ? AND stat = ?${workerId === undefined ? "" : " AND worker_id = ?"} GROUP BY bucket`,
      )
      .all(...[minuteOf(from), to, stat, ...(workerId === undefined ? [] : [workerId])]) as HistogramEntry[];
  const preemptions =
    workerId === undefined
      ? (db.$client
          .prepare("SELECT coalesce(sum(preemptions), 0) FROM requests_1m WHERE minute >= ? AND minute < ?")
          .pluck()
          .get(minuteOf(from), to) as number)
      : workerPreemptions(db, from, to, workerId);
  return {
    itlP50Ms: histogramQuantile(hist(0), 0.5),
    itlP95Ms: histogramQuantile(hist(1), 0.95),
    preemptions,
    preemptedRequests: 0,
  };
}

/** Growth of a worker's cumulative preemption counter over [from, to) from its stats rollups (0 when not reported). */
export function workerPreemptions(db: Db, from: number, to: number, workerId: string): number {
  const r = db.$client
    .prepare(
      "SELECT min(preemptions_min) AS lo, max(preemptions_max) AS hi FROM worker_stats_1m WHERE worker_id = ? AND minute >= ? AND minute < ?",
    )
    .get(workerId, minuteOf(from), to) as { lo: number | null; hi: number | null };
  return r.lo === null || r.hi === null ? 0 : r.hi - r.lo;
}

/** Latest cumulative preemptions, mean batch tokens per pass and ITL p50/p95 per worker over [from, to) (workers page columns). */
export function decodeByWorker(
  db: Db,
  from: number,
  to: number,
): Map<
  string,
  { preemptions: number | null; batchTokens: number | null; itlP50Ms: number | null; itlP95Ms: number | null }
> {
  const rows = db.$client
    .prepare(
      `SELECT worker_id AS w, max(preemptions_max) - min(preemptions_min) AS preemptions, sum(batch_tokens_sum) / nullif(sum(batch_samples), 0) AS batch
       FROM worker_stats_1m WHERE minute >= ? AND minute < ? GROUP BY worker_id LIMIT 1000`,
    )
    .all(minuteOf(from), to) as { w: string; preemptions: number | null; batch: number | null }[];
  const itl = db.$client
    .prepare(
      `SELECT worker_id AS w, stat, bucket, sum(n) AS n FROM request_itl_1m WHERE minute >= ? AND minute < ? GROUP BY worker_id, stat, bucket LIMIT 100000`,
    )
    .all(minuteOf(from), to) as { w: string; stat: number; bucket: number; n: number }[];
  const hist = new Map<string, HistogramEntry[]>();
  for (const r of itl) {
    const k = `${r.w}\u0000${r.stat}`;
    const h = hist.get(k) ?? [];
    h.push({ bucket: r.bucket, n: r.n });
    hist.set(k, h);
  }
  const out = new Map<
    string,
    { preemptions: number | null; batchTokens: number | null; itlP50Ms: number | null; itlP95Ms: number | null }
  >();
  const ids = new Set([...rows.map((r) => r.w), ...itl.map((r) => r.w)]);
  const byId = new Map(rows.map((r) => [r.w, r]));
  for (const w of ids) {
    const r = byId.get(w);
    out.set(w, {
      preemptions: r?.preemptions ?? null,
      batchTokens: r?.batch ?? null,
      itlP50Ms: histogramQuantile(hist.get(`${w}\u00000`) ?? [], 0.5),
      itlP95Ms: histogramQuantile(hist.get(`${w}\u00001`) ?? [], 0.95),
    });
  }
  return out;
}

/** Per bucket of `step` ms over requests that arrived in [from, to): the 95th percentile of their p95 ITL (ms). Buckets without ITL are absent. */
export function itlTrend(db: Db, from: number, to: number, step: number): { t: number; itlP95: number | null }[] {
  if (useRollups(from, to, step)) {
    const rows = db.$client
      .prepare(
        `SELECT minute - minute % @step AS t, bucket, sum(n) AS n FROM request_itl_1m WHERE stat = 1 AND minute >= @from AND minute < @to GROUP BY t, bucket LIMIT 200000`,
      )
      .all({ from: minuteOf(from), to, step }) as ({ t: number } & HistogramEntry)[];
    const byT = new Map<number, HistogramEntry[]>();
    for (const r of rows) (byT.get(r.t) ?? byT.set(r.t, []).get(r.t)!).push(r);
    return [...byT.entries()].sort(([a], [b]) => a - b).map(([t, h]) => ({ t, itlP95: histogramQuantile(h, 0.95) }));
  }
  const rows = db.$client
    .prepare(
      `SELECT arrived_at - arrived_at % ? AS t, itl_ms_p95 AS v FROM requests WHERE arrived_at >= ? AND arrived_at < ? AND itl_ms_p95 IS NOT NULL ORDER BY t, v LIMIT ${MAX_RAW}`,
    )
    .all(step, from, to) as { t: number; v: number }[];
  const out: { t: number; itlP95: number | null }[] = [];
  for (let i = 0; i < rows.length;) {
    let j = i;
    while (j < rows.length && rows[j]!.t === rows[i]!.t) j++;
    out.push({
      t: rows[i]!.t,
      itlP95: quantileSorted(
        rows.slice(i, j).map((r) => r.v),
        0.95,
      ),
    });
    i = j;
  }
  return out;
}
