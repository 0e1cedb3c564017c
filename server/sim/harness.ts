import type { Api, Harness } from "./types";

// Harness profiles: the shape of Claude-Code-like and Codex-like agent sessions. Sizes in tokens,
// times in ms, tool outputs in bytes. Distributions are lognormal (median, sigma) with an optional
// Pareto tail for the long-running tools (builds, test suites).

export type Dist = { median: number; sigma: number; max: number };

export type ToolSpec = {
  name: string;
  weight: number;
  wait: Dist;
  /** Probability that a run takes a Pareto-tailed long time instead (xm ms, shape alpha). */
  longTail?: { p: number; xm: number; alpha: number; max: number };
  bytes: Dist;
  bytesPerToken: number;
  /** Probability the harness waits for a human approval first (interactive sessions). */
  approval: number;
  errorRate: number;
};

export type HarnessProfile = {
  harness: Harness;
  api: Api;
  /** Content namespace of the shared prompt (same across runs, like a harness version). */
  promptNamespace: number;
  systemTokens: number;
  toolTokens: number;
  billingHeader: boolean;
  subagentSystemTokens: number;
  tools: readonly ToolSpec[];
  output: Dist;
  /** Share of turns with reasoning, and reasoning tokens as a share of the output. */
  reasoning: { p: number; share: number };
  firstUser: Dist;
  user: Dist;
  thinkTime: Dist;
  /** Probability a main-agent turn calls tools. */
  toolTurn: number;
  /** Mean number of tool calls in a tool turn (parallel calls). */
  toolsPerTurn: number;
  /** Probability a tool call starts streaming-time (before the stream ends). */
  earlyDispatch: number;
  /** Probability a session ends at a turn without tool calls. */
  endAtIdle: number;
  maxTurns: number;
  subagentTurns: number;
  subagentResult: Dist;
  errorRate: number;
  cancelRate: number;
  compactAt: number;
  summaryTokens: number;
};

const tool = (
  name: string,
  weight: number,
  wait: [number, number, number],
  bytes: [number, number, number],
  extra: Partial<ToolSpec> = {},
): ToolSpec => ({
  name,
  weight,
  wait: { median: wait[0], sigma: wait[1], max: wait[2] },
  bytes: { median: bytes[0], sigma: bytes[1], max: bytes[2] },
  bytesPerToken: 3.6,
  approval: 0,
  errorRate: 0.03,
  ...extra,
});

export const TASK_TOOL = "Task";

export const claudeCode: HarnessProfile = {
  harness: "claude_code",
  api: "messages",
  promptNamespace: 0xc1a0de,
  systemTokens: 20_000,
  toolTokens: 10_000,
  billingHeader: true,
  subagentSystemTokens: 3_000,
  tools: [
    tool("Read", 30, [60, 0.6, 2_000], [9_000, 1.1, 400_000]),
    tool("Grep", 14, [250, 0.8, 10_000], [3_000, 1.3, 300_000]),
    tool("Glob", 6, [80, 0.6, 5_000], [1_200, 1.0, 60_000]),
    tool("Edit", 18, [40, 0.5, 2_000], [400, 0.6, 8_000], { approval: 0.3 }),
    tool("Bash", 22, [2_500, 1.3, 300_000], [2_200, 1.6, 800_000], {
      approval: 0.35,
      errorRate: 0.12,
      longTail: { p: 0.08, xm: 20_000, alpha: 1.3, max: 600_000 },
    }),
    tool("WebFetch", 3, [1_800, 0.7, 30_000], [14_000, 0.9, 500_000], { bytesPerToken: 4.2 }),
    tool(TASK_TOOL, 4, [0, 0, 0], [0, 0, 0]),
  ],
  output: { median: 320, sigma: 0.9, max: 8_000 },
  reasoning: { p: 0.35, share: 0.3 },
  firstUser: { median: 180, sigma: 1.0, max: 6_000 },
  user: { median: 60, sigma: 1.0, max: 3_000 },
  thinkTime: { median: 25_000, sigma: 1.0, max: 900_000 },
  toolTurn: 0.86,
  toolsPerTurn: 1.5,
  earlyDispatch: 0.8,
  endAtIdle: 0.3,
  maxTurns: 160,
  subagentTurns: 5,
  subagentResult: { median: 700, sigma: 0.6, max: 6_000 },
  errorRate: 0.004,
  cancelRate: 0.006,
  compactAt: 150_000,
  summaryTokens: 6_000,
};

export const codex: HarnessProfile = {
  harness: "codex",
  api: "responses",
  promptNamespace: 0xc0de5,
  systemTokens: 12_000,
  toolTokens: 5_000,
  billingHeader: false,
  subagentSystemTokens: 0,
  tools: [
    tool("shell", 55, [1_500, 1.4, 300_000], [2_600, 1.5, 600_000], {
      errorRate: 0.1,
      longTail: { p: 0.07, xm: 20_000, alpha: 1.3, max: 600_000 },
    }),
    tool("read_file", 20, [60, 0.6, 2_000], [8_000, 1.1, 400_000]),
    tool("apply_patch", 20, [70, 0.5, 3_000], [500, 0.7, 10_000], { approval: 0.25 }),
    tool("update_plan", 5, [10, 0.3, 200], [150, 0.4, 2_000]),
  ],
  output: { median: 420, sigma: 0.9, max: 10_000 },
  reasoning: { p: 0.8, share: 0.45 },
  firstUser: { median: 200, sigma: 1.0, max: 6_000 },
  user: { median: 70, sigma: 1.0, max: 3_000 },
  thinkTime: { median: 30_000, sigma: 1.0, max: 900_000 },
  toolTurn: 0.84,
  toolsPerTurn: 1.3,
  earlyDispatch: 0.5,
  endAtIdle: 0.3,
  maxTurns: 160,
  subagentTurns: 0,
  subagentResult: { median: 0, sigma: 0, max: 0 },
  errorRate: 0.004,
  cancelRate: 0.005,
  compactAt: 150_000,
  summaryTokens: 5_000,
};

/** One kind of session in a scenario's mix. */
export type SessionKind = {
  profile: HarnessProfile;
  sessionType: string;
  weight: number;
  /** Main-agent turns in this kind of session are interactive (a human approves and types). */
  interactive: boolean;
  /** Share of sessions whose requests carry speculative_prefill. */
  speculative: number;
  /** Scheduling priority hint for main-agent requests (subagents get one less). */
  priority: number;
  /** Subagents launched in parallel at the first turn (an agent team), beside Task tool calls. */
  teamFanout?: { min: number; max: number };
  /** Subagents use the main agent's system prompt and tool set instead of their own short prompt. */
  subagentsShareMainPrompt?: boolean;
  /** Overrides of the profile for this kind. */
  overrides?: Partial<HarnessProfile>;
};
