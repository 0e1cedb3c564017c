import { describe, expect, it } from "vitest";
import { assembleSession, type ToolRow, type TurnRow } from "@/server/analysis/session-assembly";
import { itemDetails, laneItems } from "./trace-details";

const S = 1_764_400_000_000;
const turn = (o: Partial<TurnRow>): TurnRow => ({
  id: o.requestId ?? "t",
  requestId: "r",
  trajectoryId: "main",
  parentTrajectoryId: null,
  workerId: "w3",
  arrivedAt: S,
  firstTokenAt: S + 400,
  finishedAt: S + 1_400,
  inputTokens: 20_000,
  cachedTokens: 18_000,
  outputTokens: 300,
  reasoningTokens: 40,
  status: "ok",
  policyVersions: null,
  causes: null,
  evictedReason: null,
  retentionVersion: null,
  candidates: null,
  ...o,
});
const tool = (o: Partial<ToolRow>): ToolRow => ({
  toolCallId: "c1",
  name: "Bash",
  trajectoryId: null,
  requestId: "m1",
  dispatchedAt: null,
  startedAt: S + 1_200,
  endedAt: S + 31_200,
  status: "succeeded",
  outputTokens: 500,
  outputBytes: null,
  truncated: null,
  budgetUnit: null,
  budgetLimit: null,
  ...o,
});
const s = assembleSession(
  [
    turn({ requestId: "m1" }),
    turn({
      requestId: "m2",
      arrivedAt: S + 90_000,
      firstTokenAt: null,
      finishedAt: null,
      status: "error",
      workerId: null,
    }),
  ],
  [
    tool({}),
    tool({
      toolCallId: "c2",
      name: "Read",
      startedAt: S + 95_000,
      endedAt: null,
      status: "running",
      truncated: true,
      budgetUnit: "bytes",
      budgetLimit: 10_000,
      outputTokens: null,
    }),
  ],
  [
    { requestId: "m1", toolCallId: "c1", tokens: 25, startedAt: S + 500, endedAt: S + 650 },
    { requestId: "m2", toolCallId: null, tokens: 9, startedAt: S + 90_100, endedAt: S + 90_200 },
  ],
);
const lane = s.lanes[0]!;
const items = laneItems(lane);
const details = (key: string) =>
  itemDetails(
    items.find((i) => i.key === key)!,
    lane,
    S,
  );

describe("laneItems", () => {
  it("puts every bar of a lane in time order: turns, tools and both kinds of reasoning span", () => {
    expect(items.map((i) => i.key.replace(/:\d+:\d+$/, ""))).toEqual([
      "turn:m1",
      "reasoning:m1",
      "tool:c1",
      "turn:m2",
      "reasoning:m2",
      "tool:c2",
    ]);
  });
});

describe("hover details", () => {
  it.each<[string, string, string, [string, string][]]>([
    [
      "a turn: offset, queue/prefill/decode, tokens, worker",
      "turn:m1",
      "Turn m1 · main agent",
      [
        ["Arrived", "0 s"],
        ["Queue (est.)", "0 ms"],
        ["Prefill", "400 ms"],
        ["Decode", "1000 ms"],
        ["Tokens", "20,000 in (18,000 cached) · 300 out · 40 reasoning"],
        ["Worker", "w3"],
        ["Status", "ok"],
      ],
    ],
    [
      "a turn without timing or worker",
      "turn:m2",
      "Turn m2 · main agent",
      [
        ["Arrived", "1 m 30 s"],
        ["Queue (est.)", "—"],
        ["Prefill", "—"],
        ["Decode", "—"],
        ["Tokens", "20,000 in (18,000 cached) · 300 out · 40 reasoning"],
        ["Worker", "—"],
        ["Status", "error"],
      ],
    ],
    [
      "a tool: name, start offset, duration, status, early dispatch",
      "tool:c1",
      "Tool Bash · c1",
      [
        ["Started", "1.2 s"],
        ["Duration", "30.0 s"],
        ["Status", "succeeded"],
        ["Early dispatch", "200 ms before the stream ended"],
        ["Output", "500 tokens"],
      ],
    ],
    [
      "a running, truncated tool",
      "tool:c2",
      "Tool Read · c2",
      [
        ["Started", "1 m 35 s"],
        ["Duration", "still running"],
        ["Status", "running"],
        ["Output", "truncated at 10,000 bytes"],
      ],
    ],
  ])("%s", (_n, key, title, rows) => {
    expect(details(key)).toEqual({ title, rows });
  });

  it("a reasoning span says which tool call it explains, or its turn", () => {
    const [r1, r2] = items.filter((i) => i.kind === "reasoning").map((i) => itemDetails(i, lane, S));
    expect(r1).toEqual({
      title: "Reasoning",
      rows: [
        ["Started", "500 ms"],
        ["Duration", "150 ms"],
        ["Tokens", "25"],
        ["Explains", "tool call c1"],
      ],
    });
    expect(r2!.rows.at(-1)).toEqual(["Explains", "turn m2"]);
  });
});
