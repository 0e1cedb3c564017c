// `npm run bench:sim`: one simulated hour of the steady scenario as fast as possible, written as
// NDJSON to a temporary file, through the same code path as `npm run sim -- --fast --out FILE`.
// Usage: bench-sim [SIMULATED_SECONDS] (default 3600).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../server/sim/cli";
import { Simulation } from "../server/sim/engine";
import { scenarioByName } from "../server/sim/scenarios";
import { describeOffload, OFFLOAD_VARIANTS, runOffload } from "../server/sim/offload-report";
import { procStat } from "./thread-cpu";
import { buildServer, serverBuildIsFresh } from "./build-if-needed.mjs";

const START = 1764400000000;
/** Simulated seconds per wall second the steady hour should reach, output on, on an idle machine. */
const TARGET_SPEED = 3000;

/**
 * CPU seconds of this process's main thread (the simulation's) so far, from Linux's per-thread counters (null
 * elsewhere): the process's figure also counts the --out helper thread and V8's helpers, which run beside it.
 */
function mainThreadCpu(): number | null {
  return procStat(`/proc/self/task/${process.pid}/stat`)?.cpu ?? null;
}

/** Baseline in the same run: the same simulated hour with events discarded (no NDJSON, no file), in wall seconds. */
function core(seconds: number): { wall: number; cpu: number; mainCpu: number | null; events: number } {
  const sim = new Simulation({ scenario: scenarioByName("steady")!, seed: 1, startMs: START });
  let events = 0;
  sim.setSink(() => {
    events++;
  });
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpu();
  for (let t = 0; t < seconds; t += 10) sim.runUntil(START + Math.min(seconds, t + 10) * 1000);
  const cpu = process.cpuUsage(cpu0);
  const main1 = mainThreadCpu();
  const mainCpu = main0 === null || main1 === null ? null : main1 - main0;
  return { wall: (performance.now() - wall0) / 1000, cpu: (cpu.user + cpu.system) / 1e6, mainCpu, events };
}

async function bench(seconds: number): Promise<number> {
  // --out writes through a helper thread, a bundle of its own (dist/threads/): a fresh checkout has none yet.
  if (!serverBuildIsFresh()) await buildServer();
  const dir = mkdtempSync(join(tmpdir(), "bench-sim-"));
  const out = join(dir, "steady.ndjson");
  let summary = "";

  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpu();
  const code = await main(
    [
      "--scenario",
      "steady",
      "--seed",
      "1",
      "--start",
      String(START),
      "--fast",
      "--duration",
      String(seconds),
      "--out",
      out,
    ],
    {
      env: {},
      log: (line) => {
        summary = line;
      },
    },
  );
  const wall = (performance.now() - wall0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const main1 = mainThreadCpu();
  const mainCpu = main0 === null || main1 === null ? null : main1 - main0;
  if (code !== 0) {
    console.error(summary);
    return code;
  }
  const events = Number(/(\d+) events/.exec(summary)?.[1] ?? 0);
  const bytes = statSync(out).size;
  rmSync(dir, { recursive: true, force: true });

  console.log(`steady scenario, ${seconds} simulated s, seed 1`);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(`wall: ${wall.toFixed(1)} s (cpu ${cpuSeconds.toFixed(1)} s)`);
  console.log(`output: ${events} events, ${(bytes / 1024 / 1024).toFixed(0)} MiB NDJSON`);
  console.log(
    `speed: ${(seconds / wall).toFixed(1)} x real time (${(seconds / cpuSeconds).toFixed(1)} x per CPU second: steadier on a shared machine; target ≥ ${TARGET_SPEED} x)`,
  );
  console.log(`events: ${Math.round(events / wall)} per wall second`);
  const base = core(seconds);
  console.log(
    `baseline (same hour, events discarded): ${(seconds / base.wall).toFixed(1)} x real time (${(seconds / base.cpu).toFixed(1)} x per CPU second); output costs ${((1 - base.cpu / cpuSeconds) * 100).toFixed(0)}% of the run's CPU`,
  );
  if (mainCpu !== null && base.mainCpu !== null)
    console.log(
      `simulation thread: ${(seconds / mainCpu).toFixed(1)} x per CPU second with output, ${(seconds / base.mainCpu).toFixed(1)} discarded (output costs ${((1 - base.mainCpu / mainCpu) * 100).toFixed(0)}% of it; what wall time comes to with a second core free for the --out helper)`,
    );
  offload();
  return 0;
}

/** The offload scenario three ways: cached shares per tier, TTFT p50, wasted prefetch share (issue 16). */
function offload(seconds = 900): void {
  console.log("");
  console.log(`offload scenario, ${seconds} simulated s each, seed 1 (requests arriving after the first 120 s):`);
  const results = OFFLOAD_VARIANTS.map((v) => runOffload(v, seconds));
  for (const r of results) console.log(`  ${describeOffload(r)}`);
  const [, only, pre] = results;
  if (only!.ttftP50 !== null && pre!.ttftP50 !== null)
    console.log(
      `  prefetch vs offload-only: TTFT p50 ${((1 - pre!.ttftP50 / only!.ttftP50) * 100).toFixed(0)}% lower (target: at least 30%)`,
    );
}

bench(Number(process.argv[2] ?? 3_600)).then((code) => process.exit(code));
