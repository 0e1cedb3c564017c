import type { TelemetryEventInput } from "../ingest/events";
import type { PolicyKind } from "../control/policies";
import type { OwnedBlocks, RetentionClass } from "./block-pool";
import type { HashView } from "./stream";

// Shared shapes of the simulation core.

export type PolicyVersions = Readonly<Record<PolicyKind, number>>;
export type Harness = "claude_code" | "codex";
export type Api = "messages" | "responses" | "chat_completions";
export type AgentRole = "main" | "subagent";
export type WorkerRole = "prefill" | "decode" | "aggregated";

/** Timing of a worker; defaults are calibrated in worker.test.ts against the seed's 52k-token case. */
export type WorkerTiming = {
  prefillTokensPerSecond: number;
  /** Fixed part of the first-token step (scheduling, sampling). */
  firstTokenBaseMs: number;
  /** Context-dependent part of the first-token step: attention over the whole prompt, cached or not. */
  firstTokenPerPromptTokenMs: number;
  itlBaseMs: number;
  /** Added inter-token latency per request in the decode batch. */
  itlPerRunningMs: number;
  /** Disaggregated KV transfer cost per prompt token. */
  transferPerTokenMs: number;
  /** Tokens one scheduler step batches (for active_prefill_tokens_threshold_frac). */
  maxBatchedTokens: number;
};

export const DEFAULT_TIMING: WorkerTiming = {
  prefillTokensPerSecond: 70_000,
  firstTokenBaseMs: 20,
  firstTokenPerPromptTokenMs: 0.00285,
  itlBaseMs: 20,
  itlPerRunningMs: 1,
  transferPerTokenMs: 0.0004,
  maxBatchedTokens: 16_384,
};

export type AgentHints = { priority?: number; osl?: number; speculative_prefill?: boolean };

/** One model call as it moves through router, prefill and decode. */
export type SimRequest = {
  id: string;
  sessionId: string;
  trajectoryId: string;
  parentTrajectoryId: string | undefined;
  sessionType: string;
  harness: Harness;
  api: Api;
  view: HashView;
  segments: readonly number[];
  nBlocks: number;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  classes: readonly RetentionClass[];
  owner: OwnedBlocks;
  hints: AgentHints;
  outcome: "ok" | "error" | "cancelled";
  finishReason: string;
  policyVersions: PolicyVersions;
  arrivedAt: number;
  firstTokenAt: number | null;
  finishedAt: number | null;
  cachedTokens: number;
  workerId: string | null;
  /** Uncached tokens the router expected, counted in the worker's pending prefill load. */
  expectedPrefill: number;
  /** Block indexes the request references in its worker's pool. */
  blocks: number[];
  reservedOut: number;
  /** Called when the first token is out; finishedAt is already known then. */
  onFirstToken: ((req: SimRequest) => void) | null;
  onDone: (req: SimRequest) => void;
};

/** An event as the core emits it; the engine adds the id. */
export type EventBody = TelemetryEventInput extends infer T ? (T extends unknown ? Omit<T, "id"> : never) : never;
