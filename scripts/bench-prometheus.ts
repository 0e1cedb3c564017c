// The Prometheus side of `npm run bench:queries`: the same worker samples written as OpenMetrics, backfilled into TSDB
// blocks with promtool, served by a Prometheus started on a free local port, and timed through its HTTP query API.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Worker } from "node:worker_threads";
import { splitWorkerKey } from "../lib/worker-key";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "../lib/free-port";

const FAMILIES = [
  { name: "switchyard_kv_active_blocks", type: "gauge", sample: "switchyard_kv_active_blocks" },
  { name: "switchyard_kv_total_blocks", type: "gauge", sample: "switchyard_kv_total_blocks" },
  { name: "switchyard_prefix_query_tokens", type: "counter", sample: "switchyard_prefix_query_tokens_total" },
  { name: "switchyard_prefix_hit_tokens", type: "counter", sample: "switchyard_prefix_hit_tokens_total" },
] as const;

/** PromQL for the two workers-page charts over buckets of `step` ms: the same token-weighted ratios Switchyard draws. */
export function chartQueries(step: number, cluster?: string): { hitRate: string; kvUtilization: string } {
  const w = `${step / 1000}s`;
  const sel = cluster === undefined ? "" : `{cluster="${cluster}"}`;
  return {
    hitRate: `rate(switchyard_prefix_hit_tokens_total${sel}[${w}]) / rate(switchyard_prefix_query_tokens_total${sel}[${w}])`,
    kvUtilization: `avg_over_time(switchyard_kv_active_blocks${sel}[${w}]) / avg_over_time(switchyard_kv_total_blocks${sel}[${w}])`,
  };
}

/** True when promtool and prometheus are on the PATH. */
export function prometheusInstalled(): boolean {
  return ["promtool", "prometheus"].every((b) => spawnSync(b, ["--version"], { stdio: "ignore" }).status === 0);
}

/** Writes worker samples as one OpenMetrics file (each metric family contiguous, as the format requires). */
export class OpenMetricsWriter {
  private parts: { fd: number; buf: string[]; size: number }[];
  constructor(private dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.parts = FAMILIES.map((_, i) => ({
      fd: fs.openSync(path.join(dir, `family-${i}.txt`), "w"),
      buf: [],
      size: 0,
    }));
  }

  /** `workerId` is Switchyard's worker key: its cluster becomes a `cluster` label beside the worker's own id. */
  add(workerId: string, ts: number, kvActive: number, kvTotal: number, query: string, hit: string): void {
    const { cluster, id } = splitWorkerKey(workerId);
    const labels = `{cluster="${cluster}",worker="${id}"}`;
    const t = (ts / 1000).toFixed(3);
    [kvActive, kvTotal, query, hit].forEach((v, i) => {
      const p = this.parts[i]!;
      const line = `${FAMILIES[i]!.sample}${labels} ${v} ${t}\n`;
      p.buf.push(line);
      p.size += line.length;
      if (p.size > 1 << 20) this.flush(p);
    });
  }

  /** Close the family files and join them into `file` (with TYPE lines and the final `# EOF`). */
  finish(file: string): void {
    const out = fs.openSync(file, "w");
    this.parts.forEach((p, i) => {
      this.flush(p);
      fs.closeSync(p.fd);
      const f = FAMILIES[i]!;
      fs.writeSync(out, `# TYPE ${f.name} ${f.type}\n`);
      const part = path.join(this.dir, `family-${i}.txt`);
      fs.writeSync(out, fs.readFileSync(part));
      fs.rmSync(part);
    });
    fs.writeSync(out, "# EOF\n");
    fs.closeSync(out);
  }

  private flush(p: { fd: number; buf: string[]; size: number }) {
    fs.writeSync(p.fd, p.buf.join(""));
    p.buf = [];
    p.size = 0;
  }
}

/** Backfill an OpenMetrics file into TSDB blocks (promtool's 2-hour blocks) under `tsdbDir`. */
export function backfill(file: string, tsdbDir: string): void {
  fs.mkdirSync(tsdbDir, { recursive: true });
  const res = spawnSync("promtool", ["tsdb", "create-blocks-from", "openmetrics", "--quiet", file, tsdbDir], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (res.status !== 0) throw new Error(`promtool failed with status ${res.status}`);
}

export type RunningPrometheus = { url: string; stop: () => void };

/**
 * Serve `tsdbDir` with Prometheus on a free loopback port, scraping nothing, until ready. Compaction is held off
 * (block durations pinned to 2 h) so it cannot run while queries are timed; the blocks stay as promtool wrote them.
 */
export async function startPrometheus(tsdbDir: string): Promise<RunningPrometheus> {
  const port = await freePort();
  const config = path.join(tsdbDir, "..", "prometheus.yml");
  fs.writeFileSync(config, "global:\n  scrape_interval: 1m\nscrape_configs: []\n");
  const child: ChildProcess = spawn(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${tsdbDir}`,
      "--storage.tsdb.retention.time=3650d",
      "--storage.tsdb.min-block-duration=2h",
      "--storage.tsdb.max-block-duration=2h",
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  process.once("exit", stop);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with status ${child.exitCode}`);
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error("prometheus did not become ready in 120 s");
}

export type PromResult = {
  wallMs: number;
  engineMs: number;
  series: { metric: Record<string, string>; values: [number, string][] }[];
};

// The client runs in a thread of its own: reading Prometheus's answers (fetch's buffers, a body of a few hundred KB, its
// JSON) allocated more than the Switchyard calls it was timed against, in the benchmark's own heap, and V8 ran the
// scavenges that allocation scheduled at the next await, often inside a PostgreSQL call's wait for its reply. Each side
// now pays for its own garbage only. The thread's code is plain JavaScript (an eval worker: nothing to bundle).
const CLIENT = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", async ({ id, url, withSeries }) => {
  try {
    const t0 = performance.now();
    const res = await fetch(url);
    const body = await res.text();
    const wallMs = performance.now() - t0;
    if (!res.ok) throw new Error("prometheus " + res.status + ": " + body.slice(0, 200));
    const data = JSON.parse(body).data;
    const exec = data.stats && data.stats.timings ? data.stats.timings.execTotalTime : undefined;
    const engineMs = exec === undefined ? wallMs : exec * 1000;
    parentPort.postMessage({ id, wallMs, engineMs, series: withSeries ? data.result : [] });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});`;

export type PromClient = {
  /**
   * One range query: the wall time of the HTTP round trip (body read, not parsed) and the engine's own execution time
   * (`stats=all`: queueing, preparation, evaluation and sorting, without HTTP or JSON encoding); the series only when
   * asked for (`withSeries`), else none.
   */
  rangeQuery: (query: string, start: number, end: number, step: number, withSeries?: boolean) => Promise<PromResult>;
  close: () => Promise<void>;
};

/** A query client for the Prometheus at `url`, on a thread of its own. */
export function openPromClient(url: string): PromClient {
  const worker = new Worker(CLIENT, { eval: true });
  const waiting = new Map<number, { resolve: (r: PromResult) => void; reject: (e: Error) => void }>();
  let next = 0;
  worker.on("message", (m: PromResult & { id: number; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve({ wallMs: m.wallMs, engineMs: m.engineMs, series: m.series });
  });
  worker.on("error", (e) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  });
  return {
    rangeQuery: (query, start, end, step, withSeries = false) => {
      const q = new URLSearchParams({
        query,
        start: String(start / 1000),
        end: String(end / 1000),
        step: `${step / 1000}s`,
        stats: "all",
      });
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, url: `${url}/api/v1/query_range?${q}`, withSeries });
      });
    },
    close: async () => {
      await worker.terminate();
    },
  };
}
