import type { PolicyDocumentInputs } from "../control/policies";
import { claudeCode, codex, type SessionKind } from "./harness";
import { DEFAULT_ENGINE_TIMING, type EngineTiming } from "./timing";
import type { WorkerRole } from "./types";

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
  /** The cluster's configuration at start (version 0), over the §5 defaults. */
  policies?: Partial<PolicyDocumentInputs>;
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

export const SCENARIOS: Record<string, Scenario> = { steady, preamble, surge, pressure };
export const SCENARIO_NAMES = Object.keys(SCENARIOS);

/** A scenario by name, or null. */
export function scenarioByName(name: string): Scenario | null {
  return Object.hasOwn(SCENARIOS, name) ? SCENARIOS[name]! : null;
}
