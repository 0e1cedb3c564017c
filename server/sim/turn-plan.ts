import { TASK_TOOL, type Dist, type HarnessProfile, type ToolSpec } from "./harness";
import { clampInt, type Rng } from "./prng";
import type { ToolCall, Trajectory, TurnPlan } from "./trajectory";

// What a turn will do, drawn up front from the trajectory's own random stream (so the same seed
// gives the same sessions whatever the cache did to their timing): outcome, output and reasoning
// sizes, tool calls with their waits and output sizes, and what the user does next.

/** A lognormal draw clamped to [min, d.max]. */
export function draw(rng: Rng, d: Dist, min: number): number {
  return clampInt(rng.lognormal(d.median, d.sigma), min, d.max);
}

/** Plan the next turn of a trajectory. */
export function planTurn(nextId: (prefix: string) => string, traj: Trajectory): TurnPlan {
  const { rng, session } = traj;
  const p = session.profile;
  const sub = traj.role === "subagent";
  const interactive = session.kind.interactive && !sub;
  const r = rng.next();
  const outcome: TurnPlan["outcome"] =
    r < p.errorRate ? "error" : interactive && r < p.errorRate + p.cancelRate ? "cancelled" : "ok";
  const last = traj.turns + 1 >= traj.maxTurns;
  const fanout = !sub && traj.turns === 0 ? session.kind.teamFanout : undefined;
  let nTools = 0;
  if (fanout) nTools = rng.int(fanout.min, fanout.max);
  else if (!last && rng.chance(sub ? 0.8 : p.toolTurn)) nTools = Math.min(5, rng.geometric(p.toolsPerTurn));
  const tools: ToolCall[] = [];
  for (let k = 0; k < nTools; k++) {
    const spec = fanout ? p.tools.find((t) => t.name === TASK_TOOL)! : pickTool(rng, p, sub);
    tools.push(planTool(nextId, rng, p, spec, interactive));
  }
  let output = draw(rng, p.output, 1) + 40 * nTools;
  const reasoning = rng.chance(p.reasoning.p) ? Math.round(output * p.reasoning.share) : 0;
  const osl = Math.max(1, Math.round(output * rng.lognormal(1, 0.35)));
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
    osl,
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
  const choices = p.tools
    .filter((t) => !(t.name === TASK_TOOL && (sub || p.subagentTurns === 0)))
    .map((t) => [t, t.weight] as const);
  return rng.weighted(choices);
}

function planTool(
  nextId: (prefix: string) => string,
  rng: Rng,
  p: HarnessProfile,
  spec: ToolSpec,
  interactive: boolean,
): ToolCall {
  let waitMs = draw(rng, spec.wait, 1);
  if (spec.longTail && rng.chance(spec.longTail.p))
    waitMs = Math.min(spec.longTail.max, Math.round(rng.pareto(spec.longTail.xm, spec.longTail.alpha)));
  const approvalMs =
    interactive && rng.chance(spec.approval) ? draw(rng, { median: 4_000, sigma: 0.9, max: 300_000 }, 300) : 0;
  const failed = rng.chance(spec.errorRate);
  const bytes = failed ? clampInt(rng.lognormal(300, 0.8), 20, 8_000) : draw(rng, spec.bytes, 1);
  const subagent =
    spec.name === TASK_TOOL
      ? {
          turns: Math.min(24, rng.geometric(p.subagentTurns)),
          taskTokens: draw(rng, { median: 400, sigma: 0.8, max: 4_000 }, 20),
          resultTokens: draw(rng, p.subagentResult, 20),
        }
      : null;
  return {
    id: nextId("call"),
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
  };
}

/** The finish_reason a turn's request reports. */
export function finishReason(api: string, plan: TurnPlan): string {
  if (plan.outcome === "error") return "error";
  if (plan.outcome === "cancelled") return "cancelled";
  if (plan.tools.length) return api === "messages" ? "tool_use" : "tool_calls";
  return api === "messages" ? "end_turn" : "stop";
}
