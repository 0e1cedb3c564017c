import type { FrontendPolicy } from "../control/policies";
import { OwnedBlocks, type RetentionClass } from "./block-pool";
import { TASK_TOOL, type HarnessProfile, type SessionKind, type ToolSpec } from "./harness";
import { contentId } from "./hashing";
import { clampInt, type Rng } from "./prng";
import { HashView, SEG_CONVERSATION, SEG_SUBAGENT, type SharedPrefix, TokenStream } from "./stream";
import type { AgentRole, PolicyVersions, SimRequest } from "./types";

// Sessions and trajectories of an agent harness: one model call per turn, tool calls between turns
// (dispatched early while the stream is still running), subagents as short-lived trajectories,
// and the frontend policy applied to what the harness sends (header stripping, output truncation).

export interface AgentHost {
  readonly now: number;
  readonly salt: number;
  readonly versions: PolicyVersions;
  at(t: number, run: () => void): void;
  frontend(): FrontendPolicy;
  nextId(prefix: string): string;
  prefix(profile: HarnessProfile, subagent: boolean): SharedPrefix;
  classes(sessionType: string, role: AgentRole): readonly RetentionClass[];
  submit(req: SimRequest): void;
  emitTurnEvents(traj: Trajectory, req: SimRequest, plan: TurnPlan): void;
  emitTool(traj: Trajectory, call: ToolCall): void;
  trajectoryEnded(traj: Trajectory): void;
  sessionEnded(session: Session): void;
}

const NS_HEADER = 0x4ead;
const NS_PART = 0x9a27;
const FRAMING_TOKENS = 12;

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
  done: boolean;
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
    if (this.header === null || strip) v = this.stripped ??= this.prefix.view.clone();
    else v = this.headed ??= new HashView(this.header);
    v.extend(this.stream, this.prefix.view);
    return v;
  }

  /** Replace the conversation by a summary (context compaction). */
  compact(salt: number, summaryTokens: number): void {
    this.stream = this.prefix.stream.clone();
    this.stripped = this.headed = null;
    this.append(salt, summaryTokens);
  }
}

/** Start a session: its main trajectory's first turn, after `historyTokens` of earlier conversation. */
export function startSession(host: AgentHost, session: Session, historyTokens = 0): void {
  const main = newTrajectory(host, session, "main", null, null, session.profile.maxTurns);
  session.main = main;
  main.append(host.salt, historyTokens);
  main.append(host.salt, draw(session.rng, session.profile.firstUser, 1));
  startTurn(host, main);
}

function newTrajectory(host: AgentHost, session: Session, role: AgentRole, parent: Trajectory | null, call: ToolCall | null, maxTurns: number): Trajectory {
  const index = role === "main" ? 0 : ++session.subagents;
  const shares = role === "main" || session.kind.subagentsShareMainPrompt === true;
  const header = session.profile.billingHeader ? contentId(NS_HEADER ^ host.salt, session.index, index) : null;
  const rng = session.rng.derive(`trajectory:${index}`);
  session.live++;
  const traj = new Trajectory(host.nextId("t"), session, index, role, parent, call, rng, host.prefix(session.profile, !shares), header, maxTurns);
  session.trajectories.push(traj);
  return traj;
}

function draw(rng: Rng, d: { median: number; sigma: number; max: number }, min: number): number {
  return clampInt(rng.lognormal(d.median, d.sigma), min, d.max);
}

function planTurn(host: AgentHost, traj: Trajectory): TurnPlan {
  const { rng, session } = traj;
  const p = session.profile;
  const sub = traj.role === "subagent";
  const interactive = session.kind.interactive && !sub;
  const r = rng.next();
  let outcome: TurnPlan["outcome"] = r < p.errorRate ? "error" : interactive && r < p.errorRate + p.cancelRate ? "cancelled" : "ok";
  const last = traj.turns + 1 >= traj.maxTurns;
  const fanout = !sub && traj.turns === 0 ? session.kind.teamFanout : undefined;
  let nTools = 0;
  if (fanout) nTools = rng.int(fanout.min, fanout.max);
  else if (!last && rng.chance(sub ? 0.8 : p.toolTurn)) nTools = Math.min(5, rng.geometric(p.toolsPerTurn));
  const tools: ToolCall[] = [];
  for (let k = 0; k < nTools; k++) {
    const spec = fanout ? p.tools.find((t) => t.name === TASK_TOOL)! : pickTool(rng, p, sub);
    tools.push(planTool(host, rng, p, spec, interactive));
  }
  let output = draw(rng, p.output, 1) + 40 * nTools;
  const reasoning = rng.chance(p.reasoning.p) ? Math.round(output * p.reasoning.share) : 0;
  const cut = rng.uniform(0.1, 0.9);
  if (outcome === "cancelled") {
    output = Math.max(1, Math.round(output * cut));
    tools.length = 0;
  }
  if (outcome === "error") tools.length = 0;
  return {
    outcome,
    output,
    reasoning: Math.min(reasoning, output),
    osl: Math.max(1, Math.round(output * rng.lognormal(1, 0.35))),
    tools,
    early: rng.chance(p.earlyDispatch),
    endAtIdle: last || !interactive || rng.chance(p.endAtIdle),
    thinkMs: draw(rng, p.thinkTime, 1_000),
    userTokens: draw(rng, p.user, 1),
    overheadMs: rng.uniform(15, 80),
    retryMs: rng.uniform(500, 4_000),
  };
}

function pickTool(rng: Rng, p: HarnessProfile, sub: boolean): ToolSpec {
  const choices = p.tools.filter((t) => !(t.name === TASK_TOOL && (sub || p.subagentTurns === 0))).map((t) => [t, t.weight] as const);
  return rng.weighted(choices);
}

function planTool(host: AgentHost, rng: Rng, p: HarnessProfile, spec: ToolSpec, interactive: boolean): ToolCall {
  let waitMs = draw(rng, spec.wait, 1);
  if (spec.longTail && rng.chance(spec.longTail.p)) waitMs = Math.min(spec.longTail.max, Math.round(rng.pareto(spec.longTail.xm, spec.longTail.alpha)));
  const approvalMs = interactive && rng.chance(spec.approval) ? draw(rng, { median: 4_000, sigma: 0.9, max: 300_000 }, 300) : 0;
  const failed = rng.chance(spec.errorRate);
  const bytes = failed ? clampInt(rng.lognormal(300, 0.8), 20, 8_000) : draw(rng, spec.bytes, 1);
  const subagent =
    spec.name === TASK_TOOL
      ? { turns: Math.min(24, rng.geometric(p.subagentTurns)), taskTokens: draw(rng, { median: 400, sigma: 0.8, max: 4_000 }, 20), resultTokens: draw(rng, p.subagentResult, 20) }
      : null;
  return {
    id: host.nextId("call"),
    spec,
    requestId: "",
    dispatchedAt: 0,
    startedAt: 0,
    endedAt: 0,
    waitMs,
    approvalMs,
    bytes,
    failed,
    tokens: 0,
    sentBytes: 0,
    truncated: false,
    budget: null,
    subagent,
    done: false,
  };
}

function finishReason(api: string, plan: TurnPlan): string {
  if (plan.outcome === "error") return "error";
  if (plan.outcome === "cancelled") return "cancelled";
  if (plan.tools.length) return api === "messages" ? "tool_use" : "tool_calls";
  return api === "messages" ? "end_turn" : "stop";
}

/** Build a request for the trajectory's current prompt. */
function makeRequest(host: AgentHost, traj: Trajectory, output: number, reasoning: number, outcome: SimRequest["outcome"], reason: string, hints: SimRequest["hints"]): SimRequest {
  const s = traj.session;
  const view = traj.view(host.frontend().strip_anthropic_preamble);
  return {
    id: host.nextId("req"),
    sessionId: s.id,
    trajectoryId: traj.id,
    parentTrajectoryId: traj.parent?.id,
    sessionType: s.kind.sessionType,
    harness: s.profile.harness,
    api: s.profile.api,
    view,
    segments: traj.stream.segments,
    nBlocks: traj.stream.contents.length,
    inputTokens: traj.stream.tokens,
    outputTokens: output,
    reasoningTokens: reasoning,
    classes: host.classes(s.kind.sessionType, traj.role),
    owner: traj.stored,
    hints,
    outcome,
    finishReason: reason,
    policyVersions: host.versions,
    arrivedAt: host.now,
    firstTokenAt: null,
    finishedAt: null,
    cachedTokens: 0,
    workerId: null,
    expectedPrefill: 0,
    blocks: [],
    reservedOut: 0,
    onFirstToken: null,
    onDone: () => {},
  };
}

function startTurn(host: AgentHost, traj: Trajectory): void {
  const p = traj.session.profile;
  if (traj.stream.tokens > p.compactAt) traj.compact(host.salt, p.summaryTokens);
  const plan = planTurn(host, traj);
  const priority = traj.session.kind.priority - (traj.role === "subagent" ? 1 : 0);
  const speculative = traj.session.speculative;
  const hints = { priority, osl: plan.osl, ...(speculative ? { speculative_prefill: true } : {}) };
  const req = makeRequest(host, traj, plan.output, plan.reasoning, plan.outcome, finishReason(p.api, plan), hints);
  traj.turns++;
  traj.streaming = true;
  traj.calls = plan.tools;
  traj.pending = plan.tools.length;
  req.onFirstToken = (r) => dispatchTools(host, traj, r, plan);
  req.onDone = (r) => turnDone(host, traj, r, plan, speculative);
  host.submit(req);
}

function dispatchTools(host: AgentHost, traj: Trajectory, req: SimRequest, plan: TurnPlan): void {
  const first = req.firstTokenAt!;
  const end = req.finishedAt!;
  const n = plan.tools.length;
  plan.tools.forEach((call, k) => {
    call.requestId = req.id;
    call.dispatchedAt = plan.early ? first + (end - first) * (0.5 + (0.45 * (k + 1)) / n) : end;
    call.startedAt = call.dispatchedAt + call.approvalMs;
    if (call.subagent) host.at(call.startedAt, () => startSubagent(host, traj, call));
    else host.at(call.startedAt + call.waitMs, () => toolDone(host, traj, call, call.bytes, call.spec.bytesPerToken));
  });
}

function startSubagent(host: AgentHost, parent: Trajectory, call: ToolCall): void {
  const sub = newTrajectory(host, parent.session, "subagent", parent, call, call.subagent!.turns);
  sub.append(host.salt, call.subagent!.taskTokens);
  startTurn(host, sub);
}

function toolDone(host: AgentHost, traj: Trajectory, call: ToolCall, bytes: number, bytesPerToken: number): void {
  const budget = host.frontend().tool_output_budget;
  let tokens = Math.ceil(bytes / bytesPerToken);
  call.truncated = budget.unit === "bytes" ? bytes > budget.limit : tokens > budget.limit;
  if (call.truncated && budget.unit === "bytes") {
    bytes = budget.limit;
    tokens = Math.ceil(bytes / bytesPerToken);
  } else if (call.truncated) {
    tokens = budget.limit;
    bytes = Math.round(tokens * bytesPerToken);
  }
  call.endedAt = host.now;
  call.sentBytes = bytes;
  call.tokens = tokens;
  call.budget = budget;
  call.done = true;
  host.emitTool(traj, call);
  traj.pending--;
  maybeResume(host, traj);
}

function turnDone(host: AgentHost, traj: Trajectory, req: SimRequest, plan: TurnPlan, speculative: boolean): void {
  traj.streaming = false;
  host.emitTurnEvents(traj, req, plan);
  if (plan.outcome === "error") {
    host.at(host.now + plan.retryMs, () => startTurn(host, traj));
    return;
  }
  traj.append(host.salt, req.outputTokens);
  if (plan.outcome === "cancelled") {
    traj.append(host.salt, plan.userTokens);
    host.at(host.now + plan.thinkMs, () => startTurn(host, traj));
    return;
  }
  if (plan.tools.length) {
    if (speculative) host.submit(warmRequest(host, traj, req));
    maybeResume(host, traj);
    return;
  }
  if (plan.endAtIdle) {
    endTrajectory(host, traj);
    return;
  }
  host.at(host.now + plan.thinkMs, () => {
    traj.append(host.salt, plan.userTokens);
    startTurn(host, traj);
  });
}

/** speculative_prefill: a 1-token request that warms the predicted next-turn prefix. */
function warmRequest(host: AgentHost, traj: Trajectory, after: SimRequest): SimRequest {
  return makeRequest(host, traj, 1, 0, "ok", "length", { priority: (after.hints.priority ?? 0) - 1, osl: 1, speculative_prefill: true });
}

function maybeResume(host: AgentHost, traj: Trajectory): void {
  if (traj.streaming || traj.pending > 0 || traj.ended) return;
  for (const call of traj.calls) traj.append(host.salt, call.tokens + FRAMING_TOKENS);
  traj.calls = [];
  const overhead = traj.rng.uniform(15, 80);
  host.at(host.now + overhead, () => startTurn(host, traj));
}

function endTrajectory(host: AgentHost, traj: Trajectory): void {
  traj.ended = true;
  const session = traj.session;
  session.live--;
  host.trajectoryEnded(traj);
  const call = traj.parentCall;
  if (traj.parent && call) {
    const tokens = call.subagent!.resultTokens;
    toolDone(host, traj.parent, call, Math.round(tokens * 3.6), 3.6);
  }
  if (session.live === 0) host.sessionEnded(session);
}
