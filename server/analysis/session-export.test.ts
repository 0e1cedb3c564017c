import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionExport } from "./session-export";
import { assembleSession, type ReasoningRow, type ToolRow, type TurnRow } from "./session-assembly";

const T = 1_764_400_000_000;
const turn = (o: Partial<TurnRow>): TurnRow => ({
  id: o.requestId ?? "t",
  requestId: "r",
  trajectoryId: "main",
  parentTrajectoryId: null,
  workerId: "w1",
  arrivedAt: T,
  firstTokenAt: T + 100,
  finishedAt: T + 600,
  inputTokens: 1000,
  cachedTokens: 200,
  outputTokens: 10,
  reasoningTokens: 4,
  status: "ok",
  policyVersions: JSON.stringify({ retention: 3, routing: 2 }),
  causes: { cold: 800, diverged: 0, evicted: 0, routed_away: 0, unknown: 0 },
  evictedReason: "capacity",
  retentionVersion: 3,
  candidates: JSON.stringify([
    { worker_id: "w1", overlap_blocks: 4, prefill_blocks: 2, decode_blocks: 0, cost: 2 },
    { worker_id: "w2", overlap_blocks: 0, prefill_blocks: 6, decode_blocks: 1, cost: 7 },
  ]),
  source: "sim",
  harnessRequestId: "h-1",
  itlMsMean: 21.5,
  itlMsP95: 40,
  preemptions: 1,
  cachedDevice: 100,
  cachedHost: 60,
  cachedDisk: 40,
  cachedShared: 0,
  prefetched: 30,
  onboardMs: 12.5,
  ...o,
});
const tool = (o: Partial<ToolRow>): ToolRow => ({
  toolCallId: "c1",
  name: "Bash",
  trajectoryId: "main",
  requestId: "m1",
  dispatchedAt: T + 500,
  startedAt: T + 550,
  endedAt: T + 900,
  status: "succeeded",
  outputTokens: 120,
  outputBytes: 480,
  truncated: true,
  budgetUnit: "tokens",
  budgetLimit: 100,
  ...o,
});
const reasoning: ReasoningRow[] = [
  { requestId: "m1", toolCallId: "c1", tokens: 20, startedAt: T + 100, endedAt: T + 200 },
  { requestId: "s1", toolCallId: null, tokens: 5, startedAt: T + 1_000, endedAt: T + 1_010 },
];
// Every optional part filled, so the walk reaches every nested object of the format.
const doc = sessionExport(
  {
    sessionId: "s",
    harness: "claude_code",
    sessionType: "coding",
    ...assembleSession(
      [
        turn({ requestId: "m1" }),
        turn({
          requestId: "s1",
          trajectoryId: "sub",
          parentTrajectoryId: "main",
          arrivedAt: T + 1_000,
          firstTokenAt: T + 1_050,
          finishedAt: T + 1_200,
        }),
      ],
      [tool({})],
      reasoning,
    ),
  },
  new Map([["m1", { sequence_hashes: ["1", "18446744073709551615"], local_hashes: null }]]),
);

/** Every key of a JSON value with its path (array indices as []), depth first. */
function keyPaths(v: unknown, at = ""): string[] {
  if (Array.isArray(v)) return v.flatMap((x) => keyPaths(x, `${at}[]`));
  if (v === null || typeof v !== "object") return [];
  return Object.entries(v).flatMap(([k, x]) => [
    `${at}${at ? "." : ""}${k}`,
    ...keyPaths(x, `${at}${at ? "." : ""}${k}`),
  ]);
}
// Keys that are data (policy kinds), not field names, are still snake_case words; nothing is exempt.
const paths = [...new Set(keyPaths(doc))];

describe("switchyard.session.v1", () => {
  it("reaches every nested object of the format", () => {
    for (const p of [
      "session.totals.recomputed.routed_away",
      "trajectories[].turns[].runner_up.overlap_blocks",
      "trajectories[].tools[].budget.unit",
      "trajectories[].tools[].reasoning[].tool_call_id",
      "trajectories[].reasoning[].request_id",
    ]) {
      expect(paths).toContain(p);
    }
  });

  it("has no camelCase key anywhere: every field is snake_case like the ingest contract", () => {
    expect(paths.filter((p) => !/^[a-z0-9_]+$/.test(p.split(".").at(-1)!.replace("[]", "")))).toEqual([]);
  });

  it("documents every field in docs/session-export.md, by its path", () => {
    const section = readFileSync(path.join(__dirname, "../../docs/session-export.md"), "utf8");
    expect(section.length).toBeGreaterThan(100);
    const rows = new Map([...section.matchAll(/^\| `([^`]+)` \| (.*) \|$/gm)].map((m) => [m[1]!, m[2]!]));
    // A key of a map (a cause, a policy kind) is documented in its parent's row, in backticks.
    const documented = (p: string) =>
      rows.has(p) ||
      (rows.get(p.slice(0, p.lastIndexOf(".")))?.includes(`\`${p.slice(p.lastIndexOf(".") + 1)}\``) ?? false);
    expect(paths.filter((p) => !documented(p))).toEqual([]);
    expect([...rows.keys()].filter((p) => !paths.includes(p))).toEqual([]);
  });

  it("keeps the values: tool timing, budget, early dispatch, the runner-up and the harness's request id", () => {
    const main = doc.trajectories[0]!;
    expect(main.tools[0]).toMatchObject({
      tool_call_id: "c1",
      started_at: T + 550,
      ended_at: T + 900,
      budget: { unit: "tokens", limit: 100 },
      early_dispatch_ms: 50,
      reasoning: [{ tokens: 20, tool_call_id: "c1" }],
    });
    expect(main.turns[0]).toMatchObject({
      request_id: "m1",
      harness_request_id: "h-1",
      runner_up: { worker_id: "w2", cost: 7, overlap_blocks: 0 },
    });
    expect(doc.session.totals).toMatchObject({
      turns: 2,
      attributed_turns: 2,
      input_tokens: 2000,
      tool_calls: 1,
      tool_wait_ms: 350,
      first_at: T,
      last_at: T + 1_200,
    });
  });
});
