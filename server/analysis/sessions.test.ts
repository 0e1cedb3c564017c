import { describe, expect, it } from "vitest";
import { assembleSession, earlyDispatchGain, splitTurn, type ReasoningRow, type ToolRow, type TurnRow } from "./sessions";

const turn = (o: Partial<TurnRow>): TurnRow => ({
  id: o.requestId ?? "t", requestId: "r", trajectoryId: "main", parentTrajectoryId: null, workerId: "w1", arrivedAt: 0, firstTokenAt: 100, finishedAt: 600,
  inputTokens: 1000, cachedTokens: 0, outputTokens: 10, reasoningTokens: null, status: "ok", policyVersions: null, causes: null, evictedReason: null,
  retentionVersion: null, candidates: null, ...o,
});
const tool = (o: Partial<ToolRow>): ToolRow => ({
  toolCallId: "c", name: "Bash", trajectoryId: null, requestId: null, dispatchedAt: null, startedAt: 0, endedAt: null, status: "succeeded", outputTokens: null,
  outputBytes: null, truncated: null, budgetUnit: null, budgetLimit: null, ...o,
});

describe("assembleSession", () => {
  const turns = [
    turn({ requestId: "m1", trajectoryId: "main", arrivedAt: 0, finishedAt: 500 }),
    turn({ requestId: "s1", trajectoryId: "sub", parentTrajectoryId: "main", arrivedAt: 600, firstTokenAt: 650, finishedAt: 900 }),
    turn({ requestId: "g1", trajectoryId: "grand", parentTrajectoryId: "sub", arrivedAt: 700, firstTokenAt: 750, finishedAt: 800 }),
    turn({ requestId: "m2", trajectoryId: "main", arrivedAt: 1000, finishedAt: 1500, cachedTokens: 900 }),
  ];
  const tools = [tool({ toolCallId: "c1", requestId: "m1", startedAt: 400, endedAt: 950, truncated: true, budgetUnit: "bytes", budgetLimit: 10000 }), tool({ toolCallId: "c2", trajectoryId: "sub", startedAt: 910, endedAt: 990 })];
  const reasoning: ReasoningRow[] = [
    { requestId: "m1", toolCallId: "c1", tokens: 20, startedAt: 100, endedAt: 200 },
    { requestId: "m1", toolCallId: "c1", tokens: 30, startedAt: 250, endedAt: 300 },
    { requestId: "s1", toolCallId: null, tokens: 5, startedAt: 660, endedAt: 670 },
  ];
  const s = assembleSession(turns, tools, reasoning);

  it("nests subagents under their parent, depth-first", () => {
    expect(s.lanes.map((l) => [l.trajectoryId, l.depth, l.role])).toEqual([["main", 0, "main"], ["sub", 1, "subagent"], ["grand", 2, "subagent"]]);
    expect(s.lanes[0]!.turns.map((t) => t.requestId)).toEqual(["m1", "m2"]);
  });

  it("puts a tool in its calling turn's lane and keeps each reasoning span on the tool it explains", () => {
    const c1 = s.lanes[0]!.tools[0]!;
    expect(c1.toolCallId).toBe("c1");
    expect(c1.reasoning.map((r) => r.tokens)).toEqual([20, 30]);
    expect(c1.earlyGainMs).toBe(100);
    expect(c1).toMatchObject({ truncated: true, budgetUnit: "bytes", budgetLimit: 10000 });
    expect(s.lanes[1]!.tools.map((t) => t.toolCallId)).toEqual(["c2"]);
    expect(s.lanes[1]!.reasoning.map((r) => r.tokens)).toEqual([5]);
  });

  it("totals the session", () => {
    expect(s.totals).toMatchObject({ turns: 4, inputTokens: 4000, cachedTokens: 900, toolCalls: 2, toolWaitMs: 550 + 80, from: 0, to: 1500, causes: null });
  });
});

describe("turn timing", () => {
  it.each([
    [{ arrivedAt: 0, firstTokenAt: 100, finishedAt: 300 }, 10, { queue: 0, prefill: 100, decode: 200 }],
    [{ arrivedAt: 0, firstTokenAt: 300, finishedAt: 400 }, 10, { queue: 200, prefill: 100, decode: 100 }],
    [{ arrivedAt: 0, firstTokenAt: null, finishedAt: 400 }, 10, { queue: null, prefill: null, decode: null }],
    [{ arrivedAt: 0, firstTokenAt: 50, finishedAt: 60 }, null, { queue: 0, prefill: 50, decode: 10 }],
  ])("split %j at %s tokens/ms", (t, rate, out) => {
    expect(splitTurn(turn(t), rate)).toEqual(out);
  });

  it.each([
    [400, 500, 100],
    [600, 500, 0],
    [400, null, 0],
  ])("tool started %i, stream ended %s → gain %i ms", (start, end, gain) => {
    expect(earlyDispatchGain({ startedAt: start }, end)).toBe(gain);
  });
});
