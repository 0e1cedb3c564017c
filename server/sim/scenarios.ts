import type { PolicyDocumentInputs } from "../../lib/policies/policies";
import { claudeCode, codex, type SessionKind, type ToolSpec } from "./harness";
import { DEFAULT_ENGINE_TIMING, type EngineTiming } from "./timing";
import type { WorkerRole } from "./types";
import type { TierConfig } from "./tiers";
import type { TierBandwidth } from "./kv-tiers";

// Named workloads and cluster shapes. `sessions(t)` is the target number of live sessions t
// simulated seconds after the start.

export type Scenario = {
  name: string;
  description: string;
  model: string;
  blockSize: number;
  timing: EngineTiming;
  startupSeconds: number;
  kvBlocks: Record<WorkerRole, number>;
  workers: Partial<Record<WorkerRole, number>>;
  sessions: (elapsedSeconds: number) => number;
  kinds: readonly SessionKind[];
  /** The cluster's configuration at start (version 0), over the documented defaults. */
  policies?: Partial<PolicyDocumentInputs>;
  /** Lower KV tiers of the cluster (blocks; omitted: device only) and their read bandwidths (kv-tiers.ts defaults). */
  tiers?: TierConfig;
  tierBandwidth?: TierBandwidth;
  /** Workers are numbered from this + 1 (default 0: `w1`, …): a fleet's second model group in one cluster. */
  workerBase?: number;
};

const MODEL = "qwen3-coder-480b-a35b";
const KV = { aggregated: 10_500, prefill: 8_000, decode: 10_500 };

const mixed: SessionKind[] = [
  { profile: claudeCode, sessionType: "interactive", weight: 45, interactive: true, speculative: 0.3, priority: 10 },
  { profile: claudeCode, sessionType: "headless", weight: 15, interactive: false, speculative: 0.5, priority: 5 },
  { profile: codex, sessionType: "interactive", weight: 30, interactive: true, speculative: 0.2, priority: 10 },
  { profile: codex, sessionType: "exec", weight: 10, interactive: false, speculative: 0.2, priority: 5 },
];

const steady: Scenario = {
  name: "steady",
  description: "8 aggregated workers, mixed Claude-Code-like and Codex-like sessions, ~100 live sessions",
  model: MODEL,
  blockSize: 64,
  timing: DEFAULT_ENGINE_TIMING,
  startupSeconds: 30,
  kvBlocks: KV,
  workers: { aggregated: 8 },
  sessions: () => 100,
  kinds: mixed,
};

const teamOverrides = {
  maxTurns: 3,
  endAtIdle: 1,
  toolTurn: 0.6,
  subagentTurns: 2,
  thinkTime: { median: 3_000, sigma: 0.6, max: 30_000 },
};

const preamble: Scenario = {
  name: "preamble",
  description:
    "an agent team: many short Claude-Code-like sessions and subagents sharing one system prompt and tool set",
  model: MODEL,
  blockSize: 64,
  timing: DEFAULT_ENGINE_TIMING,
  startupSeconds: 30,
  kvBlocks: KV,
  workers: { aggregated: 4 },
  sessions: () => 40,
  policies: { autoscaling: { aggregated: { min_replicas: 4 } } },
  kinds: [
    {
      profile: claudeCode,
      sessionType: "agent_team",
      weight: 1,
      interactive: false,
      speculative: 0,
      priority: 5,
      teamFanout: { min: 2, max: 4 },
      subagentsShareMainPrompt: true,
      overrides: teamOverrides,
    },
  ],
};

/** A 40-minute cycle: 5 min at 10 sessions, a 7-minute ramp to 70, 8 min there, a ramp back, 13 min low. */
function surgeSessions(t: number): number {
  const low = 10;
  const high = 70;
  const phase = t % 2_400;
  if (phase < 300) return low;
  if (phase < 720) return low + ((high - low) * (phase - 300)) / 420;
  if (phase < 1_200) return high;
  if (phase < 1_620) return high - ((high - low) * (phase - 1_200)) / 420;
  return low;
}

const surge: Scenario = {
  name: "surge",
  description:
    "disaggregated prefill/decode workers under a load that ramps up and down; the planner scales both roles",
  model: MODEL,
  blockSize: 64,
  timing: DEFAULT_ENGINE_TIMING,
  startupSeconds: 20,
  kvBlocks: { aggregated: 12_000, prefill: 12_000, decode: 6_000 },
  workers: { prefill: 1, decode: 1 },
  sessions: surgeSessions,
  kinds: mixed,
  policies: { autoscaling: { adjustment_interval_seconds: 20, grace_period_seconds: 40 } },
};

const pressure: Scenario = {
  name: "pressure",
  description:
    "2 aggregated workers with little KV and long sessions: the retention policy decides which prefixes survive",
  model: MODEL,
  blockSize: 64,
  timing: DEFAULT_ENGINE_TIMING,
  startupSeconds: 30,
  kvBlocks: { aggregated: 2_500, prefill: 2_500, decode: 2_500 },
  workers: { aggregated: 2 },
  sessions: () => 16,
  kinds: [
    { profile: claudeCode, sessionType: "interactive", weight: 1, interactive: true, speculative: 0, priority: 10 },
    { profile: codex, sessionType: "interactive", weight: 1, interactive: true, speculative: 0, priority: 10 },
  ],
  policies: {
    frontend: { strip_anthropic_preamble: true },
    autoscaling: { aggregated: { min_replicas: 2, max_replicas: 2 } },
  },
};

/** A long build-and-test tool (tens of seconds, a narrow spread) and a quick file read. */
const offloadTools: ToolSpec[] = [
  {
    name: "Bash",
    weight: 90,
    wait: { median: 40_000, sigma: 0.3, max: 240_000 },
    bytes: { median: 600, sigma: 0.8, max: 20_000 },
    bytesPerToken: 3.6,
    approval: 0,
    errorRate: 0.05,
  },
  {
    name: "Read",
    weight: 10,
    wait: { median: 80, sigma: 0.6, max: 2_000 },
    bytes: { median: 6_000, sigma: 1.0, max: 100_000 },
    bytesPerToken: 3.6,
    approval: 0,
    errorRate: 0.02,
  },
];

const offload: Scenario = {
  name: "offload",
  description:
    "2 aggregated workers with tight GPU memory, host and disk tiers, and agents waiting ~40 s on builds: offload and prefetch decide what comes back",
  // Routing weighs prefill 4:1 over decode load, so that a returning agent goes back to the worker holding its blocks.
  model: MODEL,
  blockSize: 64,
  timing: DEFAULT_ENGINE_TIMING,
  startupSeconds: 30,
  kvBlocks: { aggregated: 5_000, prefill: 5_000, decode: 5_000 },
  workers: { aggregated: 2 },
  sessions: () => 16,
  tiers: { host_blocks: 24_000, disk_blocks: 96_000, shared_blocks: 0 },
  kinds: [
    {
      profile: claudeCode,
      sessionType: "interactive",
      weight: 1,
      interactive: true,
      speculative: 0,
      priority: 10,
      overrides: {
        billingHeader: false,
        tools: offloadTools,
        toolTurn: 0.95,
        toolsPerTurn: 1,
        earlyDispatch: 0,
        endAtIdle: 0.05,
        subagentTurns: 0,
        compactAt: 140_000,
        // Short outputs and tool results: contexts grow slowly, so minutes apart the load is alike.
        output: { median: 150, sigma: 0.6, max: 2_000 },
      },
    },
  ],
  policies: {
    retention: {
      rules: [
        { name: "keep-system-prompt", match: { segment: "system_prompt" }, priority: 90, ttl_seconds: 3600 },
        { name: "agent-context", match: { segment: "any" }, priority: 50 },
      ],
    },
    autoscaling: { aggregated: { min_replicas: 2, max_replicas: 2 } },
    routing: { prefill_load_scale: 4 },
  },
};

export const SCENARIOS: Record<string, Scenario> = { steady, preamble, surge, pressure, offload };
export const SCENARIO_NAMES = Object.keys(SCENARIOS);

/** Several clusters and models from one process (fleet.ts): not one Scenario, so scenarioByName does not know it. */
export const FLEET_SCENARIO = "fleet";

/** What `--scenario` takes. */
export const RUNNABLE_SCENARIOS = [...SCENARIO_NAMES, FLEET_SCENARIO];

/** A scenario by name, or null. */
export function scenarioByName(name: string): Scenario | null {
  return Object.hasOwn(SCENARIOS, name) ? SCENARIOS[name]! : null;
}
