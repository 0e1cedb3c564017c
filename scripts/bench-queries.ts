// `npm run bench:queries [file] [--reuse] [--engine sqlite|postgres|both]`: 24 h of 5-second stats for 64 workers
// (plus 2 routed requests/s and KV churn) in a fresh database file, then p50/p95 of 20 calls (BENCH_CALLS) of each
// workers-page procedure through createCaller for the 24h preset, then the routing-page and overview procedures
// (bench-queries-time.ts). Then the workers-page series for 1 h, 6 h and 24 h against Prometheus holding the same
// samples (bench-queries-prom.ts; when promtool and prometheus are installed; BENCH_PROMETHEUS=0 skips). The data:
// bench-queries-load.ts. A named file is kept (with its Prometheus blocks beside it); --reuse skips loading them again
// (SQLite only). --engine postgres|both also loads the same events into PostgreSQL (bench-queries-pg.ts) and times
// every procedure there too, alternating calls with SQLite's.
import { sqliteStore } from "../db/store/store";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "../db/sqlite/client";
import { backfill, OpenMetricsWriter, prometheusInstalled, startPrometheus } from "./bench-prometheus";
import { takeEngineOption, type Engine } from "./bench-ingest-engines";
import { CLUSTERS, clusterOf, HOURS, INTERVAL_MS, load, WORKERS } from "./bench-queries-load";
import { openPgBench } from "./bench-queries-pg";
import { compareWithPrometheus } from "./bench-queries-prom";
import { timeProcedures, type Caller } from "./bench-queries-time";

const PROMETHEUS = process.env.BENCH_PROMETHEUS !== "0";
const { engines, rest: args } = takeEngineOption(process.argv.slice(2));
const ENGINES = engines ?? ["sqlite"];
const REUSE = args.includes("--reuse");
const FILE =
  args.find((a) => !a.startsWith("--")) ?? path.join(os.tmpdir(), `switchyard-bench-queries-${process.pid}.db`);
const KEEP = args.some((a) => !a.startsWith("--"));

async function main() {
  const { createCaller } = await import("../server/trpc/root");
  const withPg = ENGINES.includes("postgres");
  if (withPg && REUSE) throw new Error("--reuse keeps a SQLite file only: load afresh with --engine postgres|both");
  const reuse = REUSE && fs.existsSync(FILE);
  const promDir = `${FILE}.prometheus`;
  const tsdbDir = path.join(promDir, "data");
  // Prometheus holds each sample with `cluster` and `worker` labels; a fleet's comparison selects one cluster's.
  const withProm = PROMETHEUS && prometheusInstalled();
  if (PROMETHEUS && !withProm)
    console.log("prometheus comparison skipped: promtool/prometheus not found (Debian: apt-get install prometheus)");
  if (!reuse)
    for (const f of [FILE, `${FILE}-wal`, `${FILE}-shm`, promDir]) fs.rmSync(f, { force: true, recursive: true });
  const db = openDb(FILE);
  const pg = withPg ? await openPgBench() : null;
  let end = Math.floor(Date.now() / 60_000) * 60_000;
  let workers: string[];
  try {
    if (reuse) {
      end =
        Math.floor((db.$client.prepare("SELECT max(ts) FROM worker_stats").pluck().get() as number) / 60_000) * 60_000 +
        60_000;
      workers = db.$client.prepare("SELECT worker_id FROM workers ORDER BY worker_id").pluck().all() as string[];
      console.log(`reusing ${FILE}`);
    } else {
      db.$client.pragma("synchronous = OFF");
      const t0 = performance.now();
      const metrics = withProm ? new OpenMetricsWriter(promDir) : null;
      const start = end - HOURS * 3_600_000;
      const loaded = await load(db, start, end, (...a) => metrics?.add(...a), pg?.add);
      workers = loaded.workers;
      db.$client.pragma("wal_checkpoint(TRUNCATE)");
      const mb = fs.statSync(FILE).size / 1e6;
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      console.log(
        `loaded ${loaded.samples.toLocaleString("en-US")} samples (every ${INTERVAL_MS / 1000} s) for ${CLUSTERS > 1 ? `${CLUSTERS} clusters × ` : ""}${WORKERS} workers over ${HOURS} h in ${s} s (${mb.toFixed(0)} MB, ${FILE})` +
          (pg ? ", the same events into PostgreSQL alongside" : ""),
      );
      if (pg) {
        const t1 = performance.now();
        await pg.finish();
        console.log(`postgres: analyzed in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
      }
      if (metrics) {
        const t1 = performance.now();
        const om = path.join(promDir, "samples.om");
        metrics.finish(om);
        backfill(om, tsdbDir);
        fs.rmSync(om);
        console.log(
          `backfilled the same samples into Prometheus blocks in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
        );
      }
    }

    const actor = { kind: "user", id: 0, name: "bench", role: "viewer" } as const;
    const callers: { engine: Engine; caller: Caller }[] = [];
    if (ENGINES.includes("sqlite"))
      callers.push({ engine: "sqlite", caller: createCaller({ store: sqliteStore(db), now: () => end, actor }) });
    if (pg)
      callers.push({
        engine: "postgres",
        caller: createCaller({ store: pg.store, now: () => end, actor }),
      });
    await timeProcedures(
      callers,
      workers[1]!,
      CLUSTERS > 1 ? { cluster: clusterOf(CLUSTERS - 1), model: "bench-b" } : undefined,
    );
    if (withProm) {
      const prom = await startPrometheus(tsdbDir);
      try {
        for (const c of callers)
          await compareWithPrometheus(
            c.caller,
            prom.url,
            end,
            callers.length > 1 ? `${c.engine} ` : "",
            CLUSTERS > 1 ? clusterOf(CLUSTERS - 1) : undefined,
          );
      } finally {
        prom.stop();
      }
    }
  } finally {
    db.$client.close();
    await pg?.close();
  }
  if (!KEEP)
    for (const f of [FILE, `${FILE}-wal`, `${FILE}-shm`, promDir]) fs.rmSync(f, { force: true, recursive: true });
}

// The routers import "server-only", which resolves to a no-op only under the react-server condition.
if (process.execArgv.includes("--conditions=react-server")) void main();
else {
  const res = spawnSync(
    process.execPath,
    [...process.execArgv, "--conditions=react-server", ...process.argv.slice(1)],
    { stdio: "inherit" },
  );
  process.exit(res.status ?? 1);
}
