import type { FrontendPolicy } from "../../lib/policies/policies";
import { OwnedBlocks } from "./block-pool";
import type { HarnessProfile, SessionKind, ToolSpec } from "./harness";
import { contentId } from "./hashing";
import type { Rng } from "./prng";
import { HashView, SEG_CONVERSATION, SEG_SUBAGENT, type SharedPrefix, TokenStream } from "./stream";
import type { AgentRole } from "./types";

// The state of an agent session: its trajectories (main agent and subagents), each with its own
// prompt stream and hash views, and the tool calls and turn plans between model calls.

const NS_PART = 0x9a27;

export class Session {
  live = 0;
  subagents = 0;
  main!: Trajectory;
  readonly trajectories: Trajectory[] = [];
  constructor(
    readonly id: string,
    readonly index: number,
    readonly kind: SessionKind,
    readonly profile: HarnessProfile,
    readonly rng: Rng,
    /** Requests of this session carry the speculative_prefill hint. */
    readonly speculative: boolean,
  ) {}
}

export type ToolCall = {
  id: string;
  spec: ToolSpec;
  requestId: string;
  dispatchedAt: number;
  startedAt: number;
  endedAt: number;
  waitMs: number;
  approvalMs: number;
  bytes: number;
  failed: boolean;
  tokens: number;
  sentBytes: number;
  truncated: boolean;
  budget: FrontendPolicy["tool_output_budget"] | null;
  subagent: { turns: number; taskTokens: number; resultTokens: number } | null;
};

export type TurnPlan = {
  outcome: "ok" | "error" | "cancelled";
  output: number;
  reasoning: number;
  osl: number;
  tools: ToolCall[];
  early: boolean;
  endAtIdle: boolean;
  thinkMs: number;
  userTokens: number;
  /** Harness time between the last tool result and the next request. */
  overheadMs: number;
  retryMs: number;
};

export class Trajectory {
  stream: TokenStream;
  turns = 0;
  parts = 0;
  readonly stored = new OwnedBlocks();
  private stripped: HashView | null = null;
  private headed: HashView | null = null;
  pending = 0;
  streaming = false;
  /** Harness delay before the next turn once the current tool results are in (ms). */
  resumeDelayMs = 0;
  calls: ToolCall[] = [];
  ended = false;

  constructor(
    readonly id: string,
    readonly session: Session,
    readonly index: number,
    readonly role: AgentRole,
    readonly parent: Trajectory | null,
    readonly parentCall: ToolCall | null,
    readonly rng: Rng,
    readonly prefix: SharedPrefix,
    readonly header: number | null,
    readonly maxTurns: number,
  ) {
    this.stream = prefix.stream.clone();
  }

  get segment(): number {
    return this.role === "main" ? SEG_CONVERSATION : SEG_SUBAGENT;
  }

  /** Append a new part of conversation content. */
  append(salt: number, tokens: number): void {
    if (tokens <= 0) return;
    const part = contentId(NS_PART ^ salt, this.session.index, this.index * 1_048_576 + this.parts++);
    this.stream.append(part, tokens, this.segment);
  }

  /** Hashes as the frontend forwards them: with the billing header unless it strips it. */
  view(strip: boolean): HashView {
    let v: HashView;
    if (this.header === null || strip) v = this.stripped ??= this.ownView(this.prefix.view.clone());
    else v = this.headed ??= this.ownView(new HashView(this.header));
    v.extend(this.stream, this.prefix.view);
    return v;
  }

  /**
   * A new view of this trajectory. Its conversation content is its own (parts numbered per trajectory), so every full
   * block from the end of the shared prefix on, which holds some of it, has a hash no other view holds: the prefix
   * index finds those only through this view (HashList.uniqueFrom). Below, other trajectories' copies of the prefix
   * hold the same hashes, and so does a headed view made again after compaction (same header, same prefix).
   */
  private ownView(v: HashView): HashView {
    v.uniqueFrom = this.prefix.view.length;
    return v;
  }

  /** Replace the conversation by a summary (context compaction). */
  compact(salt: number, summaryTokens: number): void {
    this.stream = this.prefix.stream.clone();
    this.stripped = this.headed = null;
    this.append(salt, summaryTokens);
  }
}
