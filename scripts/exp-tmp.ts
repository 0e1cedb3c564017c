import { openDb } from "../db/client";
import { seriesRows, statsCoverage } from "../db/queries/workers";
import { seriesPoints } from "../server/analysis/workers";
const db = openDb(process.argv[2]!);
const end = Math.floor((db.$client.prepare("SELECT max(ts) FROM worker_stats").pluck().get() as number) / 60_000) * 60_000 + 60_000;
const time = (name: string, f: () => unknown) => {
  f();
  const ms: number[] = [];
  for (let i = 0; i < 21; i++) { const s = performance.now(); f(); ms.push(performance.now() - s); }
  ms.sort((a, b) => a - b);
  console.log(name, ms[10]!.toFixed(2), "ms");
};
for (const [span, step, source] of [[3600000, 30000, "30s"], [6 * 3600000, 300000, "1m"]] as const) {
  const from = end - span;
  time(`${source} coverage`, () => statsCoverage(db));
  time(`${source} rows`, () => seriesRows(db, { from, to: end, step, source }));
  const rows = seriesRows(db, { from, to: end, step, source });
  time(`${source} points`, () => seriesPoints(rows));
}
