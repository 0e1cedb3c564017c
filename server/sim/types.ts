import type { TelemetryEventInput } from "../ingest/events";
import type { PolicyKind } from "../../lib/policies/policies";
import type { OwnedBlocks, RetentionClass } from "./block-pool";
import type { HashView } from "./stream";
import type { TierHit } from "./tier-hit";
import { BlockList } from "./block-list";

// Shared shapes of the simulation core.

export type PolicyVersions = Readonly<Record<PolicyKind, number>>;
export type Harness = "claude_code" | "codex" | "trace";
export type Api = "messages" | "responses" | "chat_completions";
export type AgentRole = "main" | "subagent";
export type WorkerRole = "prefill" | "decode" | "aggregated";

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
  blocks: BlockList;
  /** Blocks reserved for the request beyond `blocks` (the prompt block being filled, output, transferred KV). */
  reservedOut: number;
  /** Tokens whose KV must be computed before it decodes: the prompt, plus the output so far after a preemption. */
  target: number;
  /** Tokens whose KV the request holds on its worker (cached prefix included). */
  computed: number;
  /** Output tokens emitted so far. */
  generated: number;
  /** The KV arrived from a prefill worker (disaggregated); cleared when preempted. */
  transferred: boolean;
  /** 0 waiting, 1 running, 2 gone (finished or handed off). */
  stage: number;
  preemptions: number;
  lastTokenAt: number;
  /**
   * Inter-token gaps as runs [ms, count, …] (itl.ts); null when not kept: no sink wanted request events, which alone
   * carry them, as the request was submitted (a policy preview's replay).
   */
  itlRuns: number[] | null;
  /** Where its cached blocks come from below device (set by the router when the cluster has lower tiers). */
  tierHit?: TierHit;
  /** Called once it is admitted to a pass (its blocks are then referenced); set only on clusters with lower tiers. */
  onAdmit?: (req: SimRequest) => void;
  /** Called when the request has streamed its last token (first and last token times are known). */
  onFirstToken: ((req: SimRequest) => void) | null;
  onDone: (req: SimRequest) => void;
};

/** An event as the core emits it; the engine adds the id. */
export type EventBody = TelemetryEventInput extends infer T ? (T extends unknown ? Omit<T, "id"> : never) : never;

/** The per-request scheduler state of a request that has not reached a worker yet (no token, no worker, no blocks). */
export function freshEngineState(): Pick<
  SimRequest,
  | "firstTokenAt"
  | "finishedAt"
  | "cachedTokens"
  | "workerId"
  | "expectedPrefill"
  | "blocks"
  | "onFirstToken"
  | "reservedOut"
  | "target"
  | "computed"
  | "generated"
  | "transferred"
  | "stage"
  | "preemptions"
  | "lastTokenAt"
  | "itlRuns"
> {
  return {
    firstTokenAt: null,
    finishedAt: null,
    cachedTokens: 0,
    workerId: null,
    expectedPrefill: 0,
    blocks: new BlockList(),
    onFirstToken: null,
    reservedOut: 0,
    target: 0,
    computed: 0,
    generated: 0,
    transferred: false,
    stage: 0,
    preemptions: 0,
    lastTokenAt: 0,
    itlRuns: [],
  };
}
