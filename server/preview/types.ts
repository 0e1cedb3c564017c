import type { PolicyDocuments, PolicyKind } from "../../lib/policies/policies";
import type { AgentHints, WorkerRole } from "../sim/types";

// The recorded traffic of a window as the replay reads it (plain data: it crosses into a worker thread), and the
// preview's result shape (the page, the tRPC procedure and POST /api/policies/preview all answer with it).

/** One recorded model call. Times are Unix ms; `blocks` holds its chain as (hi, lo) 32-bit pairs, null when none. */
export type RecordedTurn = {
  requestId: string;
  sessionId: string;
  trajectoryId: string;
  /** Set for subagents (their blocks take the subagent role's retention classes). */
  parentTrajectoryId: string | null;
  sessionType: string;
  harness: string | null;
  arrivedAt: number;
  firstTokenAt: number | null;
  finishedAt: number | null;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  status: "ok" | "error" | "cancelled";
  hints: AgentHints;
  /** Tokens per recorded block (null: the cluster's block size). */
  blockSize: number | null;
  /** Local (content) hashes when recorded, else sequence hashes: pairs hi, lo per block. */
  blocks: Uint32Array | null;
  workerId: string | null;
  /** The first sequence hash as (hi, lo), null: no chain. */
  firstSeq: [number, number] | null;
  /** Recorded before the window (replayed to warm the caches) or after it (replayed when earlier turns of its
   * trajectory finish sooner, so it is sent inside the window); "window": recorded in it. */
  phase: "warmup" | "window" | "after";
};

export type ObservedWorker = {
  workerId: string;
  role: WorkerRole;
  kvTotalBlocks: number | null;
  blockSize: number | null;
  /** The model it serves (absent or null: not reported). */
  model?: string | null;
};

/** Capacities given by the caller instead of the observed workers (a trace from elsewhere). */
export type ClusterOverride = { workers: number; kv_total_blocks: number; block_size: number };

export type ReplayInput = {
  from: number;
  to: number;
  turns: RecordedTurn[];
  workers: ObservedWorker[];
  /** Trajectories with requests after the window: they do not end in the replay. */
  continuing: string[];
  /** Policies in force in the window, per kind, with where each came from. */
  baseline: PolicyDocuments;
  baselineNotes: string[];
  /** Recorded first-segment runs: a chain starting with this block hash holds `blocks` blocks of `segment` first. */
  firstRuns: { hi: number; lo: number; blocks: number; segment: string }[];
  /** Turns came from an imported trace (no measured cache figures). */
  imported: boolean;
};

export type CauseTokens = { cold: number; diverged: number; evicted: number; routed_away: number };

export type RunSummary = {
  /** Token-weighted prefix hit rate, 0–1 (null: no prompt tokens). */
  hit_rate: number | null;
  prompt_tokens: number;
  cached_tokens: number;
  recomputed_by_cause: CauseTokens;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  evictions_by_reason: Record<string, number>;
  evictions_by_class: Record<string, number>;
  workers: { worker_id: string; kv_mean: number | null; kv_max: number | null; preemptions: number }[];
  planner: {
    decisions: { ts: number; role: string; action: string; replicas_after: number; reason: string }[];
    gpu_hours: number;
  };
  requests: number;
};

export type SessionDelta = {
  session_id: string;
  baseline_hit_rate: number | null;
  candidate_hit_rate: number | null;
  /** Candidate cached tokens minus baseline cached tokens. */
  cached_tokens_delta: number;
};

export type PreviewResult = {
  kind: PolicyKind;
  content_hash: string;
  window: { from: number; to: number };
  /** The cluster whose traffic was replayed (absent in results kept before previews had a cluster: the default). */
  scope?: string;
  baseline: RunSummary;
  candidate: RunSummary;
  /** What the recording measured in the window (null figures: not recorded). */
  measured: { hit_rate: number | null; ttft_p50_ms: number | null; ttft_p95_ms: number | null; requests: number };
  /** Baseline prediction minus measurement: hit rate in points (0–100 scale), TTFT in ms. */
  error: { hit_rate_points: number | null; ttft_p50_ms: number | null; ttft_p95_ms: number | null };
  sessions: SessionDelta[];
  assumptions: string[];
  cluster: {
    workers: Partial<Record<WorkerRole, number>>;
    kv_blocks: Partial<Record<WorkerRole, number>>;
    block_size: number;
    source: "observed" | "override" | "assumed";
  };
  elapsed_ms: number;
};
