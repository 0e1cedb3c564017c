// bench:soak — `npm start`'s two compiled processes under the steady scenario for a while, sampled every 30 s: the
// dashboard's RSS, each of its threads' heap (used and total) and buffers (external), the simulator's RSS, the
// database's size and the attribution lag.
// Prints start, peak, end and slope per hour of each; then the same after one preview of the last hour (and once its
// idle thread has exited) and after 1,000 requests to a session's trace.
//
//   npm run bench:soak -- --minutes 60            real time (what the memory budget is stated for)
//   npm run bench:soak -- --minutes 10 --speed 6  a quicker read: the simulator runs 6x real time (say so when quoting)
//
// Budget (server/memory-budget.ts): dashboard ≤ 350 MB ten minutes after start and ≤ 5% growth over the next hour;
// simulator ≤ 200 MB. The verdict lines say whether this run held it.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../lib/free-port";
import { nodeArgs } from "../server/compiled";
import { PROCESS_BUDGET_MB } from "../server/memory-budget";
import { buildAllIfNeeded } from "./build-if-needed.mjs";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`bench:soak: ${name} must be a positive number`);
    process.exit(2);
  }
  return v;
}

const MINUTES = arg("--minutes", 60);
const SPEED = arg("--speed", 1);
const EVERY_MS = arg("--every", 30) * 1000;
const TOKEN = `sy_soak_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const MB = 1024 * 1024;

type Sample = { t: number; values: Map<string, number> };

/** The Prometheus text's samples by series (name plus labels), numbers only. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    const v = Number(line.slice(at + 1));
    if (Number.isFinite(v)) out.set(line.slice(0, at), v);
  }
  return out;
}

function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Child processes of `pid` whose command line holds `needle` (Linux /proc). */
function childPid(pid: number, needle: string): number | null {
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== pid) continue;
      if (fs.readFileSync(`/proc/${d}/cmdline`, "utf8").includes(needle)) return Number(d);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

async function get(url: string): Promise<Response> {
  return fetch(url, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(60_000) });
}

/** The session with the most turns over the last hour, then the last day; a failed answer is printed. */
async function longestSession(base: string): Promise<string | null> {
  for (const preset of ["1h", "24h"]) {
    const input = encodeURIComponent(JSON.stringify({ json: { range: { preset }, sort: "turns", limit: 1 } }));
    const res = await get(`${base}/api/trpc/sessions.list?input=${input}`);
    if (!res.ok) {
      console.log(`sessions.list (${preset}) answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      continue;
    }
    const list = (await res.json()) as { result?: { data?: { json?: { items?: { sessionId: string }[] } } } };
    const id = list.result?.data?.json?.items?.[0]?.sessionId;
    if (id) return id;
  }
  return null;
}

async function sample(base: string, pids: { dashboard: number; sim: number }): Promise<Sample> {
  const values = new Map<string, number>();
  const text = await (await get(`${base}/metrics`)).text();
  const m = parseMetrics(text);
  const rss = rssOf(pids.dashboard);
  if (rss !== null) values.set("dashboard RSS (MB)", rss / MB);
  const sim = rssOf(pids.sim);
  if (sim !== null) values.set("simulator RSS (MB)", sim / MB);
  for (const [series, v] of m) {
    const heap = /^switchyard_thread_heap_bytes\{thread="([^"]+)",kind="(used|total|external)"\}$/.exec(series);
    if (heap) values.set(`${heap[2] === "external" ? "external" : `heap ${heap[2]}`} ${heap[1]} (MB)`, v / MB);
  }
  let db = 0;
  for (const [series, v] of m) if (series.startsWith("switchyard_database_size_bytes")) db += v;
  values.set("database (MB)", db / MB);
  const lag = m.get("switchyard_attribution_lag_seconds");
  if (lag !== undefined) values.set("attribution lag (s)", lag);
  return { t: Date.now(), values };
}

function summarize(title: string, samples: Sample[]): void {
  console.log(
    `\n${title} (${samples.length} samples over ${((samples.at(-1)!.t - samples[0]!.t) / 60_000).toFixed(1)} min)`,
  );
  const names = [...new Set(samples.flatMap((s) => [...s.values.keys()]))];
  console.log(
    `  ${"series".padEnd(34)} ${"start".padStart(9)} ${"peak".padStart(9)} ${"end".padStart(9)} ${"slope/h".padStart(9)}`,
  );
  for (const name of names) {
    const pts = samples.filter((s) => s.values.has(name)).map((s) => ({ t: s.t, v: s.values.get(name)! }));
    if (!pts.length) continue;
    const peak = Math.max(...pts.map((p) => p.v));
    const slope = slopePerHour(pts);
    const f = (x: number) => x.toFixed(1).padStart(9);
    console.log(`  ${name.padEnd(34)} ${f(pts[0]!.v)} ${f(peak)} ${f(pts.at(-1)!.v)} ${f(slope)}`);
  }
}

/** Least-squares slope of v over t, per hour. */
export function slopePerHour(pts: { t: number; v: number }[]): number {
  if (pts.length < 2) return 0;
  const n = pts.length;
  const mt = pts.reduce((a, p) => a + p.t, 0) / n;
  const mv = pts.reduce((a, p) => a + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of pts) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 3_600_000;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  await buildAllIfNeeded();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-soak-"));
  const port = await freePort();
  const controlPort = await freePort();
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [...nodeArgs("start"), "--speed", String(SPEED), "--control-port", String(controlPort)],
    {
      env: {
        ...process.env,
        PORT: String(port),
        SWITCHYARD_DB: path.join(dir, "switchyard.db"),
        SWITCHYARD_BOOTSTRAP_API_TOKEN: TOKEN,
        SWITCHYARD_LOG_LEVEL: "warn",
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let banner = "";
  child.stdout!.on("data", (d) => (banner += String(d)));
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  process.on("SIGINT", () => {
    stop();
    process.exit(130);
  });
  const base = `http://localhost:${port}`;
  // Live: the banner is out and the overview shows the cluster's workers (then also its first finished requests).
  let live: number | null = null;
  let firstRequests: number | null = null;
  while (Date.now() - started < 120_000 && firstRequests === null) {
    if (banner.includes("Switchyard is running")) {
      const input = encodeURIComponent(JSON.stringify({ json: { preset: "15m" } }));
      const r = await get(`${base}/api/trpc/overview.summary?input=${input}`).catch(() => null);
      const text = r?.ok ? await r.text() : "";
      if (live === null && /"workersPresent":[1-9]/.test(text)) live = Date.now() - started;
      if (/"requests":[1-9]/.test(text)) firstRequests = Date.now() - started;
    }
    await sleep(250);
  }
  const ready = /ready in ([\d.]+) s/.exec(banner)?.[1];
  const secs = (ms: number | null) => (ms === null ? "—" : (ms / 1000).toFixed(1));
  console.log(
    `started: banner says ready in ${ready ?? "?"} s; the overview showed the cluster's workers after ${secs(live)} s and its first finished requests after ${secs(firstRequests)} s (from spawning npm start's supervisor)`,
  );
  const dashboardPid = childPid(child.pid!, "dist/dashboard.mjs");
  const simPid = childPid(child.pid!, "dist/sim.mjs");
  if (!dashboardPid || !simPid) throw new Error("could not find the dashboard's and the simulator's processes");
  const pids = { dashboard: dashboardPid, sim: simPid };
  console.log(
    `soak: ${MINUTES} min at ${SPEED}x real time, a sample every ${EVERY_MS / 1000} s (machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GB; nothing else asked of it)`,
  );

  const samples: Sample[] = [];
  const end = started + MINUTES * 60_000;
  while (Date.now() < end) {
    samples.push(await sample(base, pids));
    const s = samples.at(-1)!;
    const minute = ((s.t - started) / 60_000).toFixed(1);
    console.log(
      `  ${minute.padStart(6)} min  dashboard ${s.values.get("dashboard RSS (MB)")?.toFixed(0)} MB  simulator ${s.values.get("simulator RSS (MB)")?.toFixed(0)} MB  db ${s.values.get("database (MB)")?.toFixed(0)} MB  lag ${s.values.get("attribution lag (s)")?.toFixed(0) ?? "—"} s`,
    );
    await sleep(Math.min(EVERY_MS, Math.max(0, end - Date.now())));
  }
  summarize("Steady run", samples);
  verdict(samples, started);

  // One preview of the last hour (the retention policy the dashboard would publish, unchanged but for a priority).
  const before = await sample(base, pids);
  const t0 = Date.now();
  const preview = await fetch(`${base}/api/policies/preview`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "retention", document: { default: { priority: 12 } } }),
    signal: AbortSignal.timeout(600_000),
  });
  const previewSeconds = (Date.now() - t0) / 1000;
  const afterPreview = await sample(base, pids);
  console.log(`\npreview of the last hour: ${preview.status} in ${previewSeconds.toFixed(1)} s`);
  await sleep(70_000);
  const idle = await sample(base, pids);
  summarize("Before the preview, right after it, 70 s later (its thread idle past 60 s has exited)", [
    before,
    afterPreview,
    idle,
  ]);

  // 1,000 requests to one session's trace.
  const id = await longestSession(base);
  if (id) {
    const input = encodeURIComponent(JSON.stringify({ json: { id } }));
    const t1 = Date.now();
    let failed = 0;
    for (let i = 0; i < 1000; i++)
      if (!(await get(`${base}/api/trpc/sessions.byId?input=${input}`).then((r) => r.ok))) failed++;
    const afterTrace = await sample(base, pids);
    console.log(
      `\n1,000 trace requests of session ${id}: ${((Date.now() - t1) / 1000).toFixed(1)} s, ${failed} failed`,
    );
    summarize("After the preview's thread exited, then after 1,000 trace requests", [idle, afterTrace]);
  } else console.log("\nno session to read a trace of (the sessions list was empty or failed: above)");

  stop();
  await new Promise((r) => child.once("exit", r));
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * The budget's checks: RSS at ten minutes (or the first sample after), growth from there to the end — as two single
 * samples, and as the least-squares line through every sample from ten minutes on (RSS moves by ±10 MB between
 * samples as garbage is collected: the line is the steadier reading) — and the simulator's peak.
 */
function verdict(samples: Sample[], started: number): void {
  const at10 = samples.find((s) => s.t - started >= 10 * 60_000) ?? samples.at(-1)!;
  const rss10 = at10.values.get("dashboard RSS (MB)") ?? NaN;
  const rssEnd = samples.at(-1)!.values.get("dashboard RSS (MB)") ?? NaN;
  const simPeak = Math.max(...samples.map((s) => s.values.get("simulator RSS (MB)") ?? 0));
  const growth = ((rssEnd - rss10) / rss10) * 100;
  const after = samples
    .filter((s) => s.t >= at10.t && s.values.has("dashboard RSS (MB)"))
    .map((s) => ({ t: s.t, v: s.values.get("dashboard RSS (MB)")! }));
  const slope = slopePerHour(after);
  const mt = after.reduce((a, p) => a + p.t, 0) / after.length;
  const mv = after.reduce((a, p) => a + p.v, 0) / after.length;
  const fitted10 = mv + (slope * (at10.t - mt)) / 3_600_000;
  const fittedGrowth = ((slope * ((samples.at(-1)!.t - at10.t) / 3_600_000)) / fitted10) * 100;
  const ok = (b: boolean) => (b ? "within budget" : "OVER BUDGET");
  console.log(`\nverdict:`);
  console.log(
    `  dashboard RSS at ${((at10.t - started) / 60_000).toFixed(1)} min: ${rss10.toFixed(0)} MB (budget ${PROCESS_BUDGET_MB.dashboard} MB): ${ok(rss10 <= PROCESS_BUDGET_MB.dashboard)}`,
  );
  console.log(
    `  growth from there to the end, sample to sample: ${growth.toFixed(1)}% (budget 5% over an hour): ${ok(growth <= 5)}`,
  );
  console.log(
    `  growth from there to the end, fitted line: ${fittedGrowth.toFixed(1)}% (${slope.toFixed(1)} MB/h from ${fitted10.toFixed(0)} MB): ${ok(fittedGrowth <= 5)}`,
  );
  console.log(
    `  simulator peak RSS: ${simPeak.toFixed(0)} MB (budget ${PROCESS_BUDGET_MB.sim} MB): ${ok(simPeak <= PROCESS_BUDGET_MB.sim)}`,
  );
}

void main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
