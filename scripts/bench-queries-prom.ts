// bench:queries against Prometheus: the workers-page series beside the equivalent PromQL on the same samples.
import { bucketStep } from "../server/analysis/workers";
import { chartQueries, openPromClient, type PromClient, type PromResult } from "./bench-prometheus";
import { workerKey } from "../lib/worker-key";
import { serializeOutput } from "../server/trpc/transformer";
import { CALLS, quantile, WARMUP, type Caller } from "./bench-queries-time";

/** The response body's text as the tRPC route makes it (its transformer's envelope, JSON.stringify'd). */
const encode = (out: unknown) => JSON.stringify(serializeOutput(out));
type SeriesOut = Awaited<ReturnType<Caller["workers"]["series"]>>;
const RANGES = [
  ["1h", 3_600_000],
  ["6h", 6 * 3_600_000],
  ["24h", 24 * 3_600_000],
] as const;

/** Median |Switchyard − Prometheus| over the points both have (Switchyard's bucket [t, t+step) is Prometheus's point at t+step). */
function agreement(s: SeriesOut, prom: PromResult, column: "hitRate" | "util"): { n: number; median: number } {
  const ours = new Map<string, number>();
  for (const w of s.workers)
    w.t.forEach((t, i) => {
      const v = w[column][i];
      if (v !== null && v !== undefined) ours.set(`${w.workerId}@${t + s.step}`, v);
    });
  const diffs: number[] = [];
  for (const series of prom.series)
    for (const [t, v] of series.values) {
      const key = workerKey(series.metric.cluster ?? "default", series.metric.worker ?? "");
      const o = ours.get(`${key}@${Math.round(t * 1000)}`);
      if (o !== undefined && Number.isFinite(Number(v))) diffs.push(Math.abs(o - Number(v)));
    }
  diffs.sort((a, b) => a - b);
  return { n: diffs.length, median: diffs.length ? quantile(diffs, 0.5) : NaN };
}

/**
 * The workers-page series against Prometheus per range: calls interleaved (Switchyard, hit-rate query, utilization
 * query) so load from elsewhere on the machine hits all three alike. The workers page's call draws both charts and
 * "both-charts" compares it with the two queries; each per-chart line times the call for that chart alone (`chart`),
 * as a panel showing one chart asks, against its Prometheus query. First ratio: the procedure call over Prometheus's engine time (stats=all: no HTTP, no JSON);
 * second: the call plus its encoding as the tRPC route sends it (server/trpc/transformer.ts) over Prometheus's HTTP round trip (its JSON encoding included).
 * `cluster`: a fleet's comparison, the page scoped to that cluster against queries selecting `{cluster="…"}`.
 */
export async function compareWithPrometheus(caller: Caller, url: string, end: number, engine = "", cluster?: string) {
  const client = openPromClient(url);
  try {
    await compareRanges(caller, client, end, engine, cluster);
  } finally {
    await client.close();
  }
}

async function compareRanges(
  caller: Caller,
  client: PromClient,
  end: number,
  engine: string,
  cluster: string | undefined,
) {
  for (const [preset, span] of RANGES) {
    const step = bucketStep(span);
    const q = chartQueries(step, cluster);
    const from = end - span;
    const scope = cluster === undefined ? {} : { cluster };
    const series = (chart?: "util" | "hitRate") => caller.workers.series({ range: { preset }, chart, ...scope });
    // Points on step boundaries, as Grafana aligns them: Prometheus's point at T covers Switchyard's bucket [T − step, T).
    const prom = (query: string, withSeries = false) =>
      client.rangeQuery(query, from - (from % step) + step, end - (end % step), step, withSeries);
    const first = await series();
    const [hit, kv] = [await prom(q.hitRate, true), await prom(q.kvUtilization, true)];
    const a = agreement(first, hit, "hitRate");
    const b = agreement(first, kv, "util");
    console.log(
      `${engine}${preset}: Switchyard reads ${first.source} in ${step / 1000} s buckets (${first.workers.length} workers); Prometheus ${hit.series.length} series; ` +
        `median |difference| hit rate ${a.median.toFixed(4)} over ${a.n} points, KV utilization ${b.median.toFixed(4)} over ${b.n}`,
    );
    const t = {
      sw: [] as number[],
      wire: [] as number[],
      swHit: [] as number[],
      wireHit: [] as number[],
      swKv: [] as number[],
      wireKv: [] as number[],
      hit: [] as number[],
      kv: [] as number[],
      both: [] as number[],
      hitWall: [] as number[],
      kvWall: [] as number[],
      bothWall: [] as number[],
    };
    const timed = async (chart: "util" | "hitRate" | undefined, sw: number[], wire: number[]) => {
      const s0 = performance.now();
      const out = await series(chart);
      const s1 = performance.now();
      encode(out);
      sw.push(s1 - s0);
      wire.push(performance.now() - s0);
    };
    // Warm-up rounds, untimed, as timeProcedures does (each call and query once a round).
    for (let i = 0; i < WARMUP; i++) {
      for (const chart of [undefined, "hitRate", "util"] as const) encode(await series(chart));
      await prom(q.hitRate);
      await prom(q.kvUtilization);
    }
    for (let i = 0; i < CALLS; i++) {
      await timed(undefined, t.sw, t.wire);
      await timed("hitRate", t.swHit, t.wireHit);
      await timed("util", t.swKv, t.wireKv);
      const h = await prom(q.hitRate);
      const k = await prom(q.kvUtilization);
      t.hit.push(h.engineMs);
      t.kv.push(k.engineMs);
      t.both.push(h.engineMs + k.engineMs);
      t.hitWall.push(h.wallMs);
      t.kvWall.push(k.wallMs);
      t.bothWall.push(h.wallMs + k.wallMs);
    }
    for (const xs of Object.values(t)) xs.sort((x, y) => x - y);
    const p = (xs: number[], r: number) => quantile(xs, r);
    const ms = (xs: number[]) => `${p(xs, 0.5).toFixed(1)}/${p(xs, 0.95).toFixed(1)} ms`;
    const ratio = (ours: number[], theirs: number[]) =>
      `${(p(ours, 0.5) / p(theirs, 0.5)).toFixed(2)}x p50 ${(p(ours, 0.95) / p(theirs, 0.95)).toFixed(2)}x p95`;
    const line = (name: string, sw: number[], wire: number[], theirs: number[], wall: number[]) =>
      console.log(
        `vs prometheus: ${engine}${name} ${preset} ${ratio(sw, theirs)} (Switchyard series ${ms(sw)}, Prometheus engine ${ms(theirs)}); ` +
          `serialized: ${ratio(wire, wall)} (Switchyard + encoding ${ms(wire)}, Prometheus over HTTP ${ms(wall)})`,
      );
    line("hit-rate", t.swHit, t.wireHit, t.hit, t.hitWall);
    line("kv-utilization", t.swKv, t.wireKv, t.kv, t.kvWall);
    line("both-charts", t.sw, t.wire, t.both, t.bothWall);
  }
}
