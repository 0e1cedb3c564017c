import type { FrontendPolicy } from "../../lib/policies/policies";
import type { RetentionClass } from "./block-pool";
import type { HarnessProfile } from "./harness";
import { contentId } from "./hashing";
import type { SharedPrefix } from "./stream";
import { Trajectory, type Session, type ToolCall, type TurnPlan } from "./trajectory";
import { draw, finishReason, planTurn } from "./turn-plan";
import { freshEngineState, type AgentRole, type PolicyVersions, type SimRequest } from "./types";

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
  /** A turn's tool calls were dispatched (their start times are known). */
  toolsDispatched?(traj: Trajectory, req: SimRequest, plan: TurnPlan): void;
  trajectoryEnded(traj: Trajectory): void;
  sessionEnded(session: Session): void;
}

const NS_HEADER = 0x4ead;
const FRAMING_TOKENS = 12;

/** Start a session: its main trajectory's first turn, after `historyTokens` of earlier conversation. */
export function startSession(host: AgentHost, session: Session, historyTokens = 0): void {
  const main = newTrajectory(host, session, "main", null, null, session.profile.maxTurns);
  session.main = main;
  main.append(host.salt, historyTokens);
  main.append(host.salt, draw(session.rng, session.profile.firstUser, 1));
  startTurn(host, main);
}

function newTrajectory(
  host: AgentHost,
  session: Session,
  role: AgentRole,
  parent: Trajectory | null,
  call: ToolCall | null,
  maxTurns: number,
): Trajectory {
  const index = role === "main" ? 0 : ++session.subagents;
  const shares = role === "main" || session.kind.subagentsShareMainPrompt === true;
  const header = session.profile.billingHeader ? contentId(NS_HEADER ^ host.salt, session.index, index) : null;
  const rng = session.rng.derive(`trajectory:${index}`);
  session.live++;
  const traj = new Trajectory(
    host.nextId("t"),
    session,
    index,
    role,
    parent,
    call,
    rng,
    host.prefix(session.profile, !shares),
    header,
    maxTurns,
  );
  session.trajectories.push(traj);
  return traj;
}

/** Build a request for the trajectory's current prompt. */
function makeRequest(
  host: AgentHost,
  traj: Trajectory,
  output: number,
  reasoning: number,
  outcome: SimRequest["outcome"],
  reason: string,
  hints: SimRequest["hints"],
): SimRequest {
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
    ...freshEngineState(),
    onDone: () => {},
  };
}

function startTurn(host: AgentHost, traj: Trajectory): void {
  const p = traj.session.profile;
  if (traj.stream.tokens > p.compactAt) traj.compact(host.salt, p.summaryTokens);
  const plan = planTurn((prefix) => host.nextId(prefix), traj);
  const priority = traj.session.kind.priority - (traj.role === "subagent" ? 1 : 0);
  const speculative = traj.session.speculative;
  const hints = { priority, osl: plan.osl, ...(speculative ? { speculative_prefill: true } : {}) };
  const req = makeRequest(host, traj, plan.output, plan.reasoning, plan.outcome, finishReason(p.api, plan), hints);
  traj.turns++;
  traj.streaming = true;
  traj.calls = plan.tools;
  traj.pending = plan.tools.length;
  traj.resumeDelayMs = plan.overheadMs;
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
  if (n > 0) host.toolsDispatched?.(traj, req, plan);
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
  host.emitTool(traj, call);
  traj.pending--;
  maybeResume(host, traj);
}

function turnDone(host: AgentHost, traj: Trajectory, req: SimRequest, plan: TurnPlan, speculative: boolean): void {
  traj.streaming = false;
  host.emitTurnEvents(traj, req, plan);
  if (req.finishReason === "context_too_long") {
    // Refused by the worker (it can never hold the prompt): no answer and no tool calls to wait for, the agent ends.
    endTrajectory(host, traj);
    return;
  }
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
  return makeRequest(host, traj, 1, 0, "ok", "length", {
    priority: (after.hints.priority ?? 0) - 1,
    osl: 1,
    speculative_prefill: true,
  });
}

function maybeResume(host: AgentHost, traj: Trajectory): void {
  if (traj.streaming || traj.pending > 0 || traj.ended) return;
  for (const call of traj.calls) traj.append(host.salt, call.tokens + FRAMING_TOKENS);
  traj.calls = [];
  host.at(host.now + traj.resumeDelayMs, () => startTurn(host, traj));
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
