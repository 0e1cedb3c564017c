import { RUNNABLE_SCENARIOS } from "./scenarios";
import { parseBandwidthFlag, parseTierFlag, type TierConfig } from "./tiers";
import { DEFAULT_TIER_BANDWIDTH, type TierBandwidth } from "./kv-tiers";

// Command-line options of the simulator, parsed without I/O.

export type CliOptions = {
  dashboard: string | null;
  token: string | null;
  controlPort: number | null;
  controlHost: string;
  controlToken: string | null;
  seed: number;
  scenario: string;
  speed: number;
  fast: boolean;
  /** Send every request's full hash lists instead of the compact form (prefix_of). */
  fullChains: boolean;
  durationSeconds: number | null;
  startMs: number | null;
  out: string | null;
  policies: string | null;
  /** Lower KV tiers of the cluster (blocks; 0: absent; null: the scenario's): retention documents may offload only to these. */
  tiers: TierConfig | null;
  /** Read bandwidth of each lower tier in bytes per second (null: the scenario's or the defaults). */
  tierBandwidth: TierBandwidth | null;
  engineProfile: string | null;
  workload: string | null;
  traceBlockSize: number;
  help: boolean;
};

export const USAGE = `usage: npm run sim -- [options]

  --scenario NAME        ${RUNNABLE_SCENARIOS.join(" | ")} (default steady;
                         fleet: two clusters, one serving two models)
  --seed N               PRNG seed (default 1)
  --duration SECONDS     simulated seconds to run (default: forever when live)
  --start UNIX_MS        simulated clock origin (default: now, to the second)
  --speed X              X times real time (default 1)
  --fast                 as fast as possible (needs --duration)
  --out FILE             write the events as NDJSON to FILE, as --dashboard receives them
  --dashboard URL        POST the events to URL/api/ingest
  --full-chains          write and send each request's full hash lists (default: only what a turn adds
                         to its trajectory's previous turn, with prefix_of)
  --token T              ingest token for --dashboard (or SWITCHYARD_INGEST_TOKEN)
  --control-port P       serve the control API on P (0: any free port)
  --control-host H       address of the control API (default 127.0.0.1)
  --control-token C      bearer token of the control API (or SWITCHYARD_CONTROL_TOKEN)
  --policies FILE        JSON { retention?, autoscaling?, routing?, frontend? } applied at start
  --tiers host=N,disk=N,shared=N  lower KV tiers in blocks, each at least 1 (a tier left out: none;
                         default: the scenario's, e.g. offload has host and disk)
  --tier-bandwidth host=G,disk=G,shared=G  their read bandwidth into GPU memory in GB/s
                         (default host 25, disk 5, shared 2)
  --engine-profile FILE  pass-time curves measured on your hardware (JSON; see server/sim/profile.ts)
  --workload FILE        replay a Mooncake-format trace (JSONL, plain or gzip) instead of generated sessions
  --trace-block-size N   tokens per hash id of the --workload trace (default 512)
  --help                 this text

Same seed, scenario, policies, duration and start give a byte-identical --out file.`;

export type ParseResult = { ok: true; options: CliOptions } | { ok: false; error: string };

const FLAGS = new Set(["--fast", "--full-chains", "--help", "-h"]);
const VALUED = new Set([
  "--dashboard",
  "--token",
  "--control-port",
  "--control-host",
  "--control-token",
  "--seed",
  "--scenario",
  "--speed",
  "--duration",
  "--start",
  "--out",
  "--policies",
  "--tiers",
  "--tier-bandwidth",
  "--engine-profile",
  "--workload",
  "--trace-block-size",
]);

/** Parse argv (without node and script) and the environment into options, or an error. */
export function parseArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): ParseResult {
  const o: CliOptions = {
    dashboard: null,
    token: env.SWITCHYARD_INGEST_TOKEN || null,
    controlPort: null,
    controlHost: "127.0.0.1",
    controlToken: env.SWITCHYARD_CONTROL_TOKEN || null,
    seed: 1,
    scenario: "steady",
    speed: 1,
    fast: false,
    fullChains: false,
    durationSeconds: null,
    startMs: null,
    out: null,
    policies: null,
    tiers: null,
    tierBandwidth: null,
    engineProfile: null,
    workload: null,
    traceBlockSize: 512,
    help: false,
  };
  let speedGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const eq = raw.indexOf("=");
    const flag = raw.startsWith("--") && eq > 0 ? raw.slice(0, eq) : raw;
    let value: string | undefined;
    if (!FLAGS.has(flag) && !VALUED.has(flag)) return { ok: false, error: `unknown option ${flag}` };
    if (!FLAGS.has(flag)) {
      value = raw.startsWith("--") && eq > 0 ? raw.slice(eq + 1) : argv[++i];
      if (value === undefined) return { ok: false, error: `${flag} needs a value` };
    }
    const v = value ?? "";
    switch (flag) {
      case "--help":
      case "-h":
        o.help = true;
        break;
      case "--fast":
        o.fast = true;
        break;
      case "--full-chains":
        o.fullChains = true;
        break;
      case "--dashboard":
        if (!/^https?:\/\/[^\s]+$/.test(v)) return { ok: false, error: "--dashboard must be an http(s) URL" };
        o.dashboard = v.replace(/\/+$/, "");
        break;
      case "--token":
        o.token = v;
        break;
      case "--control-port": {
        const port = int(v);
        if (port === null || port < 0 || port > 65_535)
          return { ok: false, error: "--control-port must be a port number" };
        o.controlPort = port;
        break;
      }
      case "--control-host":
        o.controlHost = v;
        break;
      case "--control-token":
        o.controlToken = v;
        break;
      case "--seed": {
        const seed = int(v);
        if (seed === null || seed < 0 || seed > 4_294_967_295)
          return { ok: false, error: "--seed must be an integer from 0 to 4294967295" };
        o.seed = seed;
        break;
      }
      case "--scenario":
        if (!RUNNABLE_SCENARIOS.includes(v))
          return {
            ok: false,
            error: `unknown scenario ${JSON.stringify(v)} (one of ${RUNNABLE_SCENARIOS.join(", ")})`,
          };
        o.scenario = v;
        break;
      case "--speed": {
        const speed = Number(v);
        if (!Number.isFinite(speed) || speed <= 0 || speed > 1_000_000)
          return { ok: false, error: "--speed must be a positive number" };
        o.speed = speed;
        speedGiven = true;
        break;
      }
      case "--duration": {
        const d = Number(v);
        if (!Number.isFinite(d) || d <= 0 || d > 366 * 24 * 3600)
          return { ok: false, error: "--duration must be a positive number of seconds" };
        o.durationSeconds = d;
        break;
      }
      case "--start": {
        const start = int(v);
        if (start === null || start < 946_684_800_000 || start > 4_000_000_000_000)
          return { ok: false, error: "--start must be Unix milliseconds (after 2000)" };
        o.startMs = start;
        break;
      }
      case "--out":
        o.out = v;
        break;
      case "--policies":
        o.policies = v;
        break;
      case "--tiers": {
        const t = parseTierFlag(v);
        if (!t.ok) return { ok: false, error: `--tiers: ${t.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}` };
        o.tiers = t.tiers;
        break;
      }
      case "--tier-bandwidth": {
        const b = parseBandwidthFlag(v, DEFAULT_TIER_BANDWIDTH);
        if (!b.ok)
          return { ok: false, error: `--tier-bandwidth: ${b.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}` };
        o.tierBandwidth = b.bandwidth;
        break;
      }
      case "--engine-profile":
        o.engineProfile = v;
        break;
      case "--workload":
        o.workload = v;
        break;
      case "--trace-block-size": {
        const n = int(v);
        if (n === null || n < 1 || n > 1_048_576)
          return { ok: false, error: "--trace-block-size must be a positive integer" };
        o.traceBlockSize = n;
        break;
      }
      default:
        return { ok: false, error: `unknown option ${flag}` };
    }
  }
  if (o.help) return { ok: true, options: o };
  if (o.fast && speedGiven) return { ok: false, error: "give --speed or --fast, not both" };
  if (o.fast && o.durationSeconds === null && o.dashboard === null && o.workload === null)
    return { ok: false, error: "--fast without --duration only makes sense with --dashboard" };
  if (!o.out && !o.dashboard) return { ok: false, error: "nothing to do: give --out FILE and/or --dashboard URL" };
  if (o.dashboard && !o.token) return { ok: false, error: "--dashboard needs --token (or SWITCHYARD_INGEST_TOKEN)" };
  if (o.controlPort !== null && !o.controlToken)
    return { ok: false, error: "--control-port needs --control-token (or SWITCHYARD_CONTROL_TOKEN)" };
  return { ok: true, options: o };
}

function int(v: string): number | null {
  return /^\d+$/.test(v) ? Number(v) : null;
}
