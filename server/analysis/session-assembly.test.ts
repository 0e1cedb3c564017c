import { describe, expect, it } from "vitest";
import {
  assembleSession,
  earlyDispatchGain,
  mergeHarnessTurns,
  splitTurn,
  type ReasoningRow,
  type ToolRow,
  type TurnRow,
} from "./session-assembly";

const turn = (o: Partial<TurnRow>): TurnRow => ({
  id: o.requestId ?? "t",
  requestId: "r",
  trajectoryId: "main",
  parentTrajectoryId: null,
  workerId: "w1",
  arrivedAt: 0,
  firstTokenAt: 100,
  finishedAt: 600,
  inputTokens: 1000,
  cachedTokens: 0,
  outputTokens: 10,
  reasoningTokens: null,
  status: "ok",
  policyVersions: null,
  causes: null,
  evictedReason: null,
  retentionVersion: null,
  candidates: null,
  ...o,
});
const tool = (o: Partial<ToolRow>): ToolRow => ({
  toolCallId: "c",
  name: "Bash",
  trajectoryId: null,
  requestId: null,
  dispatchedAt: null,
  startedAt: 0,
  endedAt: null,
  status: "succeeded",
  outputTokens: null,
  outputBytes: null,
  truncated: null,
  budgetUnit: null,
  budgetLimit: null,
  ...o,
});

describe("assembleSession", () => {
  const turns = [
    turn({ requestId: "m1", trajectoryId: "main", arrivedAt: 0, finishedAt: 500 }),
    turn({
      requestId: "s1",
      trajectoryId: "sub",
      parentTrajectoryId: "main",
      arrivedAt: 600,
      firstTokenAt: 650,
      finishedAt: 900,
    }),
    turn({
      requestId: "g1",
      trajectoryId: "grand",
      parentTrajectoryId: "sub",
      arrivedAt: 700,
      firstTokenAt: 750,
      finishedAt: 800,
    }),
    turn({ requestId: "m2", trajectoryId: "main", arrivedAt: 1000, finishedAt: 1500, cachedTokens: 900 }),
  ];
  const tools = [
    tool({
      toolCallId: "c1",
      requestId: "m1",
      startedAt: 400,
      endedAt: 950,
      truncated: true,
      budgetUnit: "bytes",
      budgetLimit: 10000,
    }),
    tool({ toolCallId: "c2", trajectoryId: "sub", startedAt: 910, endedAt: 990 }),
  ];
  const reasoning: ReasoningRow[] = [
    { requestId: "m1", toolCallId: "c1", tokens: 20, startedAt: 100, endedAt: 200 },
    { requestId: "m1", toolCallId: "c1", tokens: 30, startedAt: 250, endedAt: 300 },
    { requestId: "s1", toolCallId: null, tokens: 5, startedAt: 660, endedAt: 670 },
  ];
  const s = assembleSession(turns, tools, reasoning);

  it("nests subagents under their parent, depth-first", () => {
    expect(s.lanes.map((l) => [l.trajectoryId, l.depth, l.role])).toEqual([
      ["main", 0, "main"],
      ["sub", 1, "subagent"],
      ["grand", 2, "subagent"],
    ]);
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
    expect(s.totals).toMatchObject({
      turns: 4,
      inputTokens: 4000,
      cachedTokens: 900,
      toolCalls: 2,
      toolWaitMs: 550 + 80,
      from: 0,
      to: 1500,
      causes: null,
    });
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

describe("mergeHarnessTurns", () => {
  const T = 1_764_400_000_000;
  const infra = (id: string, o: Partial<TurnRow> = {}) =>
    turn({
      id,
      requestId: id,
      workerId: "w1",
      arrivedAt: T,
      inputTokens: 20_000,
      outputTokens: 300,
      source: "sim",
      ...o,
    });
  const harness = (id: string, o: Partial<TurnRow> = {}) =>
    turn({
      id: `otlp-${id}`,
      requestId: id,
      workerId: null,
      arrivedAt: T + 400,
      inputTokens: 20_000,
      outputTokens: 300,
      source: "otlp",
      ...o,
    });
  const shape = (ts: TurnRow[]) => mergeHarnessTurns(ts).map((t) => [t.id, t.harnessRequestId ?? null]);

  it.each<[string, TurnRow[], (string | null)[][]]>([
    [
      "same tokens, 0.4 s apart: one turn, the cluster's, naming the harness's request",
      [infra("d1"), harness("h1")],
      [["d1", "h1"]],
    ],
    [
      "the same request id, whatever the tokens",
      [infra("r1", { inputTokens: 5 }), harness("r1", { arrivedAt: T + 60_000 })],
      [["r1", "r1"]],
    ],
    [
      "same tokens but 10 s apart: two turns",
      [infra("d1"), harness("h1", { arrivedAt: T + 10_000 })],
      [
        ["d1", null],
        ["otlp-h1", null],
      ],
    ],
    [
      "different output tokens: two turns",
      [infra("d1"), harness("h1", { outputTokens: 301 })],
      [
        ["d1", null],
        ["otlp-h1", null],
      ],
    ],
    ["a harness turn alone stays", [harness("h1")], [["otlp-h1", null]]],
    [
      "cluster turns alone stay",
      [infra("d1"), infra("d2", { arrivedAt: T + 1_000 })],
      [
        ["d1", null],
        ["d2", null],
      ],
    ],
    [
      "two identical calls: each harness turn pairs with the nearest free cluster turn",
      [
        infra("d1"),
        infra("d2", { arrivedAt: T + 3_000 }),
        harness("h1", { arrivedAt: T + 200 }),
        harness("h2", { arrivedAt: T + 3_100 }),
      ],
      [
        ["d1", "h1"],
        ["d2", "h2"],
      ],
    ],
    [
      "two harness reports of one call: the second stays separate",
      [infra("d1"), harness("h1"), harness("h2", { arrivedAt: T + 500 })],
      [
        ["d1", "h1"],
        ["otlp-h2", null],
      ],
    ],
  ])("%s", (_name, turns, expected) => {
    expect(shape(turns)).toEqual(expected);
  });

  it("keeps everything the serving stack knew about the merged turn", () => {
    const [t] = mergeHarnessTurns([
      infra("d1", { cachedTokens: 17_000, trajectoryId: "main-1" }),
      harness("h1", { cachedTokens: 18_000 }),
    ]);
    expect(t).toMatchObject({
      id: "d1",
      workerId: "w1",
      cachedTokens: 17_000,
      trajectoryId: "main-1",
      harnessRequestId: "h1",
    });
  });
});
