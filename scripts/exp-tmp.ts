import { openDb } from "../db/client";
import { seriesRows, statsCoverage } from "../db/queries/workers";
import { seriesPoints } from "../server/analysis/workers";
const db = openDb(process.argv[2]!);
const end = Math.floor((db.$client.prepare("SELECT max(ts) FROM worker_stats").pluck().get() as number) / 60_000) * 60_000 + 60_000;
const from = end - 3600000, step = 30000;
const time = (name: string, f: () => unknown) => {
  f();
  const ms: number[] = [];
  for (let i = 0; i < 15; i++) { const s = performance.now(); f(); ms.push(performance.now() - s); }
  ms.sort((a, b) => a - b);
  console.log(name, ms[7]!.toFixed(2), "ms");
};
time("coverage", () => statsCoverage(db));
time("10s perChunk", () => seriesRows(db, { from, to: end, step, source: "10s" }));
time("10s perChunk + points", () => seriesPoints(seriesRows(db, { from, to: end, step, source: "10s" })));
time("raw", () => seriesRows(db, { from, to: end, step, source: "raw" }));
const sums = `sum(samples) AS samples, sum(kv_active_sum) AS kvActive, sum(kv_total_sum) AS kvTotal, sum(prefix_query_delta) AS query, sum(prefix_hit_delta) AS hit`;
const one = db.$client.prepare(`SELECT worker_id AS workerId, minute - minute % @step AS t, ${sums} FROM worker_stats_10s INDEXED BY worker_stats_10s_minute WHERE minute >= @from AND minute < @to GROUP BY worker_id, t`);
time("10s single grouped query", () => one.all({ from, to: end, step }));
const plain = db.$client.prepare(`SELECT worker_id AS workerId, minute, samples, kv_active_sum, kv_total_sum, prefix_query_delta, prefix_hit_delta FROM worker_stats_10s INDEXED BY worker_stats_10s_minute WHERE minute >= @from AND minute < @to`);
time("10s plain rows", () => plain.all({ from, to: end }));
time("10s plain rows raw()", () => plain.raw().all({ from, to: end }));
const cnt = db.$client.prepare(`SELECT count(*) FROM worker_stats_10s INDEXED BY worker_stats_10s_minute WHERE minute >= @from AND minute < @to`);
time("10s count", () => cnt.all({ from, to: end }));
console.log(db.$client.prepare(`EXPLAIN QUERY PLAN SELECT worker_id AS workerId, minute - minute % @step AS t, ${sums} FROM worker_stats_10s INDEXED BY worker_stats_10s_minute WHERE minute >= @from AND minute < @to GROUP BY worker_id, t`).all({ from, to: end, step }));
