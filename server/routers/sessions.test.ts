import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { flattenLogs } from "../sources/otlp/decode";
import { mapRecord } from "../sources/otlp/map";
import { DEFAULT_CLUSTER_ATTRIBUTES } from "../sources/otlp/cluster-attributes";
import { testCaller, testDb } from "../../test/db";
import { minimal, parsed, T0 } from "../../test/events";
import { insertEvents } from "../../db/sqlite/ingest";
import { runAttribution } from "../jobs/attribution";
import { SQLITE_SESSIONS } from "../../test/session-stores";
import { sessionsCases, sixSessions } from "./sessions.cases";

// Six sessions whose first block (a per-session header) differs while the rest of the prompt is the same.
function seeded() {
  const db = testDb();
  insertEvents(db, sixSessions().map(parsed));
  runAttribution(db);
  return testCaller(db, () => T0 + 120_000);
}

const range = { from: T0 - 60_000, to: T0 + 120_000 };

describe("sessions procedures", () => {
  it("lists sessions, sorted by a column, paged by cursor", async () => {
    const api = seeded();
    const p1 = await api.sessions.list({ range, sort: "toolWaitMs", dir: "desc", limit: 4 });
    expect(p1.items.map((s) => s.sessionId)).toEqual(["sess-5", "sess-4", "sess-3", "sess-2"]);
    const p2 = await api.sessions.list({ range, sort: "toolWaitMs", dir: "desc", limit: 4, cursor: p1.nextCursor });
    expect(p2.items.map((s) => s.sessionId)).toEqual(["sess-1", "sess-0"]);
    expect(p2.nextCursor).toBeNull();
  });

  it("filters by status, search and harness", async () => {
    const api = seeded();
    expect((await api.sessions.list({ range, status: "error" })).items.map((s) => s.sessionId)).toEqual(["sess-5"]);
    expect((await api.sessions.list({ range, search: "sess-3" })).items).toHaveLength(1);
    expect((await api.sessions.list({ range, harness: "codex" })).items).toHaveLength(0);
  });

  it("byId assembles the trace with causes and the runner-up", async () => {
    const t = await seeded().sessions.byId({ id: "sess-2" });
    const turn = t.lanes[0]!.turns[0]!;
    expect(turn.causes).toEqual({ cold: 4, diverged: 8, evicted: 0, routed_away: 0, unknown: 0 });
    expect(turn.runnerUp).toEqual({ workerId: "w2", cost: 8, overlapBlocks: 0 });
    await expect(seeded().sessions.byId({ id: "nope" })).rejects.toThrow(/no session/);
  });

  it("finds the unstable prefix with its evidence and remedy", async () => {
    const f = await seeded().sessions.findings({ range });
    expect(f.unstablePrefix).toMatchObject({ sessionsAffected: 6, distinctFirstBlocks: 6, tokensRecomputed: 40 });
    expect(f.unstablePrefix?.remedy).toMatch(/strip_anthropic_preamble/);
  });

  it("serves recomputed tokens by cause per bucket", async () => {
    const s = await seeded().sessions.causeSeries({ range });
    const sum = s.points.reduce((a, p) => a + p.cold + p.diverged, 0);
    expect(sum).toBe(72);
  });
});

describe("a model call reported by both the harness and the serving stack", () => {
  const OTLP = JSON.parse(
    readFileSync(path.join(__dirname, "../sources/otlp/fixtures/claude-code.json"), "utf8"),
  ) as object;
  const CC = 1_764_400_000_000;

  /** Claude Code's OTLP logs for cc-session-1 (its api_request req_011A), plus the serving stack's `request` for the same call. */
  function both() {
    const db = testDb();
    const harness = flattenLogs(OTLP, 5_000)
      .map((r) => mapRecord(r, DEFAULT_CLUSTER_ATTRIBUTES))
      .flatMap((m) => (m.event ? [m.event] : []));
    expect(harness.find((e) => e.kind === "request" && e.request_id === "req_011A")).toMatchObject({
      session_id: "cc-session-1",
      source: "otlp",
      input_tokens: 20_120,
      output_tokens: 300,
    });
    const cluster = minimal.request({
      id: "dyn-req-7",
      request_id: "dyn-7",
      session_id: "cc-session-1",
      worker_id: "w1",
      arrived_at: CC + 800,
      first_token_at: CC + 1_100,
      finished_at: CC + 2_000,
      ts: CC + 2_000,
      input_tokens: 20_120,
      cached_tokens: 16_000,
      output_tokens: 300,
      source: "sim",
    });
    insertEvents(db, [...harness, cluster].map(parsed));
    runAttribution(db);
    return testCaller(db, () => CC + 60_000);
  }

  it("counts once in the list, as on the trace: the serving stack's tokens", async () => {
    const api = both();
    const trace = await api.sessions.byId({ id: "cc-session-1" });
    // The fixture also holds an api_error (a failed call the serving stack never saw): two turns, not three.
    expect(trace.totals.turns).toBe(2);
    expect(trace.lanes.flatMap((l) => l.turns).find((t) => t.requestId === "dyn-7")?.harnessRequestId).toBe("req_011A");
    const [row] = (await api.sessions.list({ range: { from: CC - 60_000, to: CC + 60_000 }, search: "cc-session-1" }))
      .items;
    expect(row).toMatchObject({
      sessionId: "cc-session-1",
      turns: trace.totals.turns,
      inputTokens: trace.totals.inputTokens,
      cachedTokens: 16_000,
      outputTokens: 300,
      agents: 1,
      errors: 1,
      ttftP50: 300,
    });
    expect(row!.cachedShare).toBeCloseTo(trace.totals.cachedShare!, 9);
  });
});

// The cases run on both engines (sessions.pg.test.ts: PostgreSQL).
sessionsCases(SQLITE_SESSIONS);
