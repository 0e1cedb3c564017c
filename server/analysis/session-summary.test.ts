import { describe, expect, it } from "vitest";
import { summarizeTurns, type SummaryTurn } from "./session-summary";

const T = 1_764_400_000_000;
const turn = (id: string, o: Partial<SummaryTurn> = {}): SummaryTurn => ({
  id,
  requestId: id,
  trajectoryId: "main",
  parentTrajectoryId: null,
  arrivedAt: T,
  firstTokenAt: T + 200,
  finishedAt: T + 1_000,
  inputTokens: 1_000,
  cachedTokens: 600,
  outputTokens: 50,
  status: "ok",
  source: "sim",
  causes: { cold: 400, diverged: 0, evicted: 0, routed_away: 0, unknown: 0 },
  ...o,
});
// The harness's report of a call: no TTFT, Anthropic-normalised cache figures, no trajectory, causes of its own.
const harness = (id: string, o: Partial<SummaryTurn> = {}) =>
  turn(`otlp-${id}`, {
    requestId: id,
    trajectoryId: null,
    firstTokenAt: null,
    arrivedAt: T + 300,
    cachedTokens: 900,
    source: "otlp",
    causes: { cold: 0, diverged: 0, evicted: 0, routed_away: 0, unknown: 100 },
    ...o,
  });

describe("summarizeTurns", () => {
  it.each<[string, SummaryTurn[], Record<string, unknown> | null]>([
    ["no turns: no row", [], null],
    [
      "one serving-stack turn",
      [turn("d1")],
      { turns: 1, agents: 1, inputTokens: 1_000, cachedTokens: 600, cold: 400, unknown: 0, ttftP50: 200, errors: 0 },
    ],
    [
      "the same call from both: counted once, with the serving stack's figures",
      [turn("d1"), harness("h1")],
      {
        turns: 1,
        agents: 1,
        inputTokens: 1_000,
        cachedTokens: 600,
        cold: 400,
        unknown: 0,
        ttftP50: 200,
        firstAt: T,
        lastAt: T + 1_000,
      },
    ],
    [
      "paired by request id whatever the tokens",
      [turn("r1"), harness("r1", { inputTokens: 5, outputTokens: 5 })],
      { turns: 1, inputTokens: 1_000 },
    ],
    [
      "a harness-only call stays, on its own agent",
      [turn("d1"), harness("h1", { outputTokens: 7 })],
      { turns: 2, agents: 2, inputTokens: 2_000, cachedTokens: 1_500, unknown: 100 },
    ],
    [
      "errors and subagents over the kept turns",
      [
        turn("d1"),
        turn("d2", {
          trajectoryId: "sub",
          parentTrajectoryId: "main",
          status: "error",
          arrivedAt: T + 2_000,
          finishedAt: null,
        }),
      ],
      { turns: 2, agents: 2, subagents: 1, errors: 1, lastAt: T + 2_000 },
    ],
    ["causes null before attribution add nothing", [turn("d1", { causes: null })], { cold: 0, cachedShare: 0.6 }],
  ])("%s", (_name, rows, want) => {
    const s = summarizeTurns(rows);
    if (want === null) expect(s).toBeNull();
    else expect(s).toMatchObject(want);
  });
});
