import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionChainsOf } from "../../db/store/export";
import { sessionSummary } from "../../db/store/session-list";
import type { Store } from "../../db/store/store";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import type { TelemetryEvent } from "../ingest/events";

// The sessions procedures and the export's chains on seeded data, written once and run on each engine
// (sessions.test.ts: SQLite; sessions.pg.test.ts: PostgreSQL, attribution's outputs copied from a SQLite run over the
// same events): the same rows, pages and figures from either.

const NOW = T0 + 120_000;
const range = { from: T0 - 60_000, to: NOW };

/** Six one-turn sessions whose first block differs while the rest of the prompt is the same. */
export function sixSessions(): Raw[] {
  const out: Raw[] = [];
  for (let s = 0; s < 6; s++) {
    const at = T0 + s * 10_000;
    out.push(
      minimal["route.decision"]({
        id: `rd-${s}`,
        ts: at,
        request_id: `r${s}`,
        session_id: `sess-${s}`,
        chosen_worker_id: "w1",
        candidates: [
          { worker_id: "w1", overlap_blocks: 0, prefill_blocks: 3, decode_blocks: 0, cost: 3 },
          { worker_id: "w2", overlap_blocks: 0, prefill_blocks: 3, decode_blocks: 5, cost: 8 },
        ],
      }),
      minimal.request({
        id: `req-${s}`,
        request_id: `r${s}`,
        session_id: `sess-${s}`,
        trajectory_id: `main-${s}`,
        harness: "claude_code",
        session_type: "coding",
        worker_id: "w1",
        arrived_at: at,
        first_token_at: at + 900,
        finished_at: at + 1000,
        ts: at + 1000,
        input_tokens: 12,
        cached_tokens: 0,
        block_size: 4,
        sequence_hashes: [`${s + 1}1`, `${s + 1}2`, `${s + 1}3`],
        local_hashes: [`9${s}`, "102", "103"],
        status: s === 5 ? "error" : "ok",
      }),
      minimal.tool({
        id: `tool-${s}`,
        session_id: `sess-${s}`,
        request_id: `r${s}`,
        tool_call_id: `c${s}`,
        started_at: at + 1000,
        ended_at: at + 1000 + s * 100,
        status: "succeeded",
      }),
    );
  }
  return out;
}

const U64_MAX = "18446744073709551615";
const BIG = "9223372036854775808";

/**
 * A session whose id sorts first only byte by byte ("S" < "s"), on w2, with a subagent, a second main turn that
 * extends the first (stored compactly on SQLite), u64 edge hashes, a truncated tool and a reasoning span.
 */
function upperSession(): Raw[] {
  const at = T0 + 70_000;
  const req = (id: string, o: Raw) =>
    minimal.request({
      id: `req-${id}`,
      request_id: id,
      session_id: "S-upper",
      harness: "codex",
      session_type: "review",
      worker_id: "w2",
      input_tokens: 16,
      cached_tokens: 8,
      output_tokens: 5,
      block_size: 4,
      status: "ok",
      ...o,
    });
  return [
    req("u1", {
      trajectory_id: "um",
      arrived_at: at,
      first_token_at: at + 200,
      finished_at: at + 400,
      ts: at + 400,
      sequence_hashes: ["0", U64_MAX, BIG],
      local_hashes: ["7", "8", "9"],
    }),
    req("u2", {
      trajectory_id: "us",
      parent_trajectory_id: "um",
      arrived_at: at + 500,
      first_token_at: at + 700,
      finished_at: at + 900,
      ts: at + 900,
      sequence_hashes: ["0", "5"],
      local_hashes: ["7", "6"],
    }),
    req("u3", {
      trajectory_id: "um",
      arrived_at: at + 1_000,
      first_token_at: at + 1_100,
      finished_at: at + 1_300,
      ts: at + 1_300,
      sequence_hashes: ["0", U64_MAX, BIG, "4"],
      local_hashes: ["7", "8", "9", "10"],
    }),
    minimal.tool({
      id: "tool-u",
      session_id: "S-upper",
      trajectory_id: "um",
      request_id: "u1",
      tool_call_id: "cu",
      started_at: at + 400,
      ended_at: at + 950,
      status: "succeeded",
      output_bytes: 5_000_000_000,
      truncated: true,
    }),
    minimal.reasoning({
      id: "rs-u",
      ts: at + 300,
      request_id: "u1",
      tool_call_id: "cu",
      tokens: 9,
      started_at: at + 100,
      ended_at: at + 300,
    }),
  ];
}

export function seedSessions(): TelemetryEvent[] {
  return [...sixSessions(), ...upperSession()].map(parsed);
}

export function sessionsCases(e: PageEngine): void {
  describe.skipIf(e.skip)(`sessions procedures on seeded data on ${e.engine}`, () => {
    let seeded: PageStore;
    let store: Store;
    let api: ReturnType<PageStore["caller"]>;
    beforeAll(async () => {
      seeded = await e.seeded(seedSessions());
      store = seeded.store;
      api = seeded.caller(() => NOW);
    }, 60_000);
    afterAll(() => seeded.close());

    const ids = (p: { items: { sessionId: string }[] }) => p.items.map((s) => s.sessionId);

    it.each([
      ["toolWaitMs", "desc", ["S-upper", "sess-5", "sess-4"], ["sess-3", "sess-2", "sess-1"], ["sess-0"]],
      ["sessionId", "asc", ["S-upper", "sess-0", "sess-1"], ["sess-2", "sess-3", "sess-4"], ["sess-5"]],
      ["lastAt", "asc", ["sess-0", "sess-1", "sess-2"], ["sess-3", "sess-4", "sess-5"], ["S-upper"]],
      ["turns", "desc", ["S-upper", "sess-5", "sess-4"], ["sess-3", "sess-2", "sess-1"], ["sess-0"]],
      ["cachedShare", "asc", ["sess-0", "sess-1", "sess-2"], ["sess-3", "sess-4", "sess-5"], ["S-upper"]],
    ] as const)("sorted by %s %s, paged by cursor", async (sort, dir, ...pages) => {
      let cursor = null;
      for (const want of pages) {
        const p = await api.sessions.list({ range, sort, dir, limit: 3, cursor });
        expect(ids(p)).toEqual(want);
        cursor = p.nextCursor;
      }
      expect(cursor).toBeNull();
    });

    it.each([
      [{ status: "error" as const }, ["sess-5"]],
      [{ status: "active" as const }, ["S-upper", "sess-4", "sess-3", "sess-2", "sess-1", "sess-0"]],
      [{ status: "ended" as const }, []],
      [{ search: "sess-3" }, ["sess-3"]],
      [{ search: "upper" }, ["S-upper"]],
      [{ search: "%" }, []],
      [{ harness: "codex" }, ["S-upper"]],
      [{ harness: "nope" }, []],
      [{ sessionType: "review" }, ["S-upper"]],
      [{ workerId: "w2" }, ["S-upper"]],
      [{ hasSubagents: true }, ["S-upper"]],
      [{ minTurns: 2 }, ["S-upper"]],
      [{ minHit: 0.4 }, ["S-upper"]],
      [{ maxHit: 0.4 }, ["sess-5", "sess-4", "sess-3", "sess-2", "sess-1", "sess-0"]],
      // Every request here is of the default cluster and model "llama".
      [{ cluster: "default" }, ["S-upper", "sess-5", "sess-4", "sess-3", "sess-2", "sess-1", "sess-0"]],
      [{ cluster: "default", model: "llama", harness: "codex" }, ["S-upper"]],
      [{ cluster: "staging" }, []],
      [{ model: "gpt-oss-120b" }, []],
    ])("filters %o", async (filter, want) => {
      expect(ids(await api.sessions.list({ range, ...filter }))).toEqual(want);
    });

    it("a range before every session lists none; the facets list every harness and type, byte order", async () => {
      const p = await api.sessions.list({ range: { from: T0 - 120_000, to: T0 - 60_000 } });
      expect(p.items).toEqual([]);
      expect(p.facets).toEqual({ harnesses: ["claude_code", "codex"], sessionTypes: ["coding", "review"] });
    });

    it("a summary row reads back with every figure; an unknown session has none", async () => {
      const row = await sessionSummary(store, "S-upper");
      expect(row).toMatchObject({
        sessionId: "S-upper",
        harness: "codex",
        sessionType: "review",
        turns: 3,
        agents: 2,
        subagents: 1,
        inputTokens: 48,
        cachedTokens: 24,
        outputTokens: 15,
        toolCalls: 1,
        toolWaitMs: 550,
        errors: 0,
      });
      expect(row!.cachedShare).toBeCloseTo(0.5, 12);
      expect(await sessionSummary(store, "nope")).toBeUndefined();
    });

    it("byId assembles the trace with causes and the runner-up", async () => {
      const t = await api.sessions.byId({ id: "sess-2" });
      const turn = t.lanes[0]!.turns[0]!;
      expect(turn.causes).toEqual({ cold: 4, diverged: 8, evicted: 0, routed_away: 0, unknown: 0 });
      expect(turn.runnerUp).toEqual({ workerId: "w2", cost: 8, overlapBlocks: 0 });
      await expect(api.sessions.byId({ id: "nope" })).rejects.toThrow(/no session/);
    });

    it("byId lays out lanes, tools and reasoning in time order, with the harness and type", async () => {
      const t = await api.sessions.byId({ id: "S-upper" });
      expect({ harness: t.harness, sessionType: t.sessionType }).toEqual({ harness: "codex", sessionType: "review" });
      expect(t.lanes.map((l) => [l.trajectoryId, l.turns.map((x) => x.requestId)])).toEqual([
        ["um", ["u1", "u3"]],
        ["us", ["u2"]],
      ]);
      expect(t.totals).toMatchObject({ turns: 3, inputTokens: 48 });
      const tools = t.lanes.flatMap((l) => l.tools ?? []);
      expect(tools.map((x) => [x.toolCallId, x.truncated, x.outputBytes])).toEqual([["cu", true, 5_000_000_000]]);
      expect(JSON.stringify(t)).toContain('"tokens":9');
    });

    it("a turn's decision ranks its candidates; a request without one has none", async () => {
      const d = await api.sessions.decision({ requestId: "r3" });
      expect(d).toMatchObject({ chosenWorkerId: "w1" });
      expect(JSON.stringify(d)).toContain("w2");
      expect(await api.sessions.decision({ requestId: "u1" })).toBeNull();
    });

    it("finds the unstable prefix with its evidence and remedy", async () => {
      const f = await api.sessions.findings({ range });
      expect(f.unstablePrefix).toMatchObject({ sessionsAffected: 6, distinctFirstBlocks: 6, tokensRecomputed: 40 });
      expect(f.unstablePrefix?.remedy).toMatch(/strip_anthropic_preamble/);
      const none = await api.sessions.findings({ range: { from: T0 - 120_000, to: T0 - 60_000 } });
      expect(none.unstablePrefix).toBeNull();
      // Of a scope: every request here is the default cluster's "llama"; another cluster or model finds nothing.
      const scoped = await api.sessions.findings({ range, cluster: "default", model: "llama" });
      expect({ ...scoped, from: 0, to: 0 }).toEqual({ ...f, from: 0, to: 0 });
      for (const other of [{ cluster: "staging" }, { model: "gpt-oss-120b" }]) {
        const empty = await api.sessions.findings({ range, ...other });
        expect([empty.unstablePrefix, empty.toolWait]).toEqual([null, null]);
      }
    });

    it("serves recomputed tokens by cause per bucket", async () => {
      const s = await api.sessions.causeSeries({ range });
      expect(s.points.every((p) => p.t % s.step === 0)).toBe(true);
      expect(s.points.reduce((a, p) => a + p.cold + p.diverged, 0)).toBeGreaterThanOrEqual(72);
      const none = await api.sessions.causeSeries({ range: { from: T0 - 120_000, to: T0 - 60_000 } });
      expect(none.points).toEqual([]);
    });

    it("the export's chains read back exactly as sent, u64 edges included", async () => {
      const chains = await sessionChainsOf(store, "S-upper");
      expect(Object.fromEntries(chains)).toEqual({
        u1: { sequence_hashes: ["0", U64_MAX, BIG], local_hashes: ["7", "8", "9"] },
        u2: { sequence_hashes: ["0", "5"], local_hashes: ["7", "6"] },
        u3: { sequence_hashes: ["0", U64_MAX, BIG, "4"], local_hashes: ["7", "8", "9", "10"] },
      });
      expect((await sessionChainsOf(store, "nope")).size).toBe(0);
    });
  });
}
