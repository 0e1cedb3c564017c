// `npm run bench:preview [-- --minutes N] [--case preamble|pressure|steady] [--pairs N] [--sequential]`: does the
// preview predict what a policy change does? For three
// cases — stripping the billing header in the `preamble` scenario, a retention change in `pressure`, and one in `steady`
// (one hour of steady traffic should preview in ≤ 5 s, on one thread too) — it records N
// simulated minutes (default 60, after 5 of warm-up) under the start policies, ingests them into a fresh database
// through the ingest's own validation and batch transaction, previews the change on that window, then runs the
// simulator for the same window with the change in force. Prints the predicted and the actual hit rate, the
// baseline's error against the recording, and the preview's wall time beside one plain simulator run of the same
// window measured in the same process (the machine may be busy: compare the ratio): as the dashboard's preview thread
// runs it with a helper thread free (the baseline in the helper beside the candidate), as it runs it without one
// (baseline then candidate on one thread), and again with the baseline kept (what a second candidate on the window
// costs). `--pairs N` repeats plain run, one-thread preview and two-thread preview N times, alternating which preview
// goes first, so the two are compared in the same minutes; each is printed with its wall and CPU seconds (every thread
// of the process). `--sequential` times the one-thread preview only.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../db/sqlite/client";
import { insertEvents } from "../db/sqlite/ingest";
import type { PolicyKind } from "../lib/policies/policies";
import { parseEvent, type TelemetryEvent } from "../server/ingest/events";
import { preparePreview } from "../server/preview/request";
import { Simulation } from "../server/sim/engine";
import { toJsonLine } from "../server/sim/json-lines";
import { scenarioByName } from "../server/sim/scenarios";
import { PRESSURE_RETENTION_CANDIDATE } from "../test/preview-candidates";
import { printTimings, timePreviews } from "./bench-preview-pairs";
import { buildServer, serverBuildIsFresh } from "./build-if-needed.mjs";

const WARMUP_S = 300;

/** The default rule (system prompt at priority 90 for an hour) and the tool definitions kept next to it. */
const STEADY_RETENTION_CANDIDATE = {
  rules: [
    { name: "keep-system-prompt", match: { segment: "system_prompt" }, priority: 90, ttl_seconds: 3600 },
    { name: "keep-tool-definitions", match: { segment: "tool_definitions" }, priority: 80, ttl_seconds: 3600 },
  ],
};
const BATCH = 5_000;

type Case = { name: string; scenario: string; kind: PolicyKind; document: unknown; label: string };

const CASES: Case[] = [
  {
    name: "preamble",
    scenario: "preamble",
    kind: "frontend",
    document: { strip_anthropic_preamble: true },
    label: "stripping the billing header (recorded with stripping off)",
  },
  {
    name: "pressure",
    scenario: "pressure",
    kind: "retention",
    document: PRESSURE_RETENTION_CANDIDATE,
    label: "retention: conversation at priority 80, the shared prompt pinned",
  },
  {
    name: "steady",
    scenario: "steady",
    kind: "retention",
    document: STEADY_RETENTION_CANDIDATE,
    label: "retention: tool definitions kept at priority 80 for an hour beside the default system-prompt rule",
  },
];

type Options = { minutes: number; pairs: number; sequential: boolean };

function optionsOf(argv: readonly string[]): Options {
  const num = (flag: string, dflt: number) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  const minutes = num("--minutes", 60);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60) throw new Error("--minutes takes 0 < N ≤ 1440");
  const pairs = num("--pairs", 1);
  if (!Number.isInteger(pairs) || pairs < 1 || pairs > 20) throw new Error("--pairs takes an integer 1–20");
  return { minutes, pairs, sequential: argv.includes("--sequential") };
}

/** A simulation of the scenario from `startMs`, with one kind replaced when `change` is given. */
function simulation(c: Case, startMs: number, change: boolean): Simulation {
  const sim = new Simulation({ scenario: scenarioByName(c.scenario)!, seed: 1, startMs });
  if (change) {
    const r = sim.configure(c.kind, c.document);
    if (!r.ok) throw new Error(`bad ${c.kind} document: ${JSON.stringify(r.errors)}`);
  }
  return sim;
}

/** Token-weighted hit rate of the requests that arrived in [from, to). */
function hitRate(
  requests: { arrived_at: number; input_tokens: number; cached_tokens: number }[],
  from: number,
  to: number,
) {
  let hit = 0;
  let query = 0;
  for (const r of requests) {
    if (r.arrived_at < from || r.arrived_at >= to) continue;
    hit += r.cached_tokens;
    query += r.input_tokens;
  }
  return query ? hit / query : NaN;
}

const pct = (v: number | null) => (v === null || Number.isNaN(v) ? "n/a" : `${(v * 100).toFixed(1)}%`);

async function runCase(c: Case, opts: Options, dir: string): Promise<void> {
  const minutes = opts.minutes;
  const startMs = Math.floor(Date.now() / 60_000) * 60_000 - (minutes * 60 + WARMUP_S) * 1000 - 3_600_000;
  const from = startMs + WARMUP_S * 1000;
  const to = from + minutes * 60_000;
  const dbFile = path.join(dir, `${c.name}.db`);
  const db = openDb(dbFile);

  // 1. Record under the start policies and ingest (validation + the batch transaction, as /api/ingest does).
  let t = performance.now();
  const recorded = simulation(c, startMs, false);
  let batch: TelemetryEvent[] = [];
  let events = 0;
  const flush = () => {
    if (batch.length) insertEvents(db, batch);
    events += batch.length;
    batch = [];
  };
  recorded.setSink((e) => {
    const p = parseEvent(JSON.parse(toJsonLine(e)));
    if (!p.ok) throw new Error(`the simulator sent an invalid event: ${p.error}`);
    batch.push(p.event);
    if (batch.length >= BATCH) flush();
  });
  recorded.runUntil(to + 120_000);
  flush();
  const recordS = (performance.now() - t) / 1000;

  // 2. The preview as the dashboard's preview thread runs it (reads the window back, replays baseline and candidate),
  // with and without a helper thread, each pair beside one plain simulator run of the window (no output): the same-run
  // yardstick for the preview's time.
  const scenario = scenarioByName(c.scenario)!;
  const request = preparePreview(
    { kind: c.kind, document: c.document, window: { from, to }, baseline: scenario.policies ?? {} },
    to,
  );
  const plain = () => simulation(c, startMs, false).runUntil(to);
  const timings = await timePreviews(db, dbFile, request, plain, opts.pairs, opts.sequential);
  const result = timings.result;

  // 3. What the change really does: the simulator for the same window with it in force.
  const actualRequests: { arrived_at: number; input_tokens: number; cached_tokens: number; finish_reason?: string }[] =
    [];
  const actual = simulation(c, startMs, true);
  actual.setSink((e) => {
    if (e.kind === "request") actualRequests.push(e);
  });
  actual.runUntil(to + 120_000);
  const actualRate = hitRate(actualRequests, from, to);
  const inWindow = actualRequests.filter((r) => r.arrived_at >= from && r.arrived_at < to);
  const actualCount = inWindow.length;
  const actualRefused = inWindow.filter((r) => r.finish_reason === "context_too_long").length;
  db.$client.close();

  const predicted = result.candidate.hit_rate;
  const gap = predicted === null ? NaN : Math.abs(predicted - actualRate) * 100;
  console.log(
    `\n${c.name}: ${c.label}, ${minutes} simulated min (${events} events recorded in ${recordS.toFixed(1)} s)`,
  );
  console.log(
    `  baseline: predicted ${pct(result.baseline.hit_rate)} measured ${pct(result.measured.hit_rate)} (error ${result.error.hit_rate_points} points)`,
  );
  console.log(
    `  predicted: ${pct(predicted)} actual: ${pct(actualRate)} (hit rate) — ${gap.toFixed(1)} points apart (target ≤ 3)`,
  );
  console.log(
    `  requests: ${result.candidate.requests} replayed (as recorded), ${actualCount} in the simulator run with the change (the replay sends only recorded turns)`,
  );
  for (const note of result.assumptions.filter((a) => a.includes("were refused"))) console.log(`  note: ${note}`);
  if (actualRefused > 0)
    console.log(
      `  refused in the simulator run with the change (prompt over the KV beside pinned blocks): ${actualRefused}`,
    );
  console.log(
    `  TTFT p50/p95 predicted ${result.candidate.ttft_p50_ms}/${result.candidate.ttft_p95_ms} ms, baseline ${result.baseline.ttft_p50_ms}/${result.baseline.ttft_p95_ms} ms, measured ${result.measured.ttft_p50_ms}/${result.measured.ttft_p95_ms} ms`,
  );
  printTimings(timings, minutes);
}

async function main(): Promise<void> {
  // Previews replay in threads started from their compiled files.
  if (!serverBuildIsFresh()) await buildServer();
  const opts = optionsOf(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-preview-"));
  try {
    console.log(`bench:preview — ${os.cpus().length} cores; figures depend on what else the machine is doing`);
    const only = process.argv.indexOf("--case");
    const picked = only >= 0 ? CASES.filter((c) => c.name === process.argv[only + 1]) : CASES;
    if (picked.length === 0) throw new Error(`--case takes one of ${CASES.map((c) => c.name).join(", ")}`);
    for (const c of picked) await runCase(c, opts, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
