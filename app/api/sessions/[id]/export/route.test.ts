import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minimal, ndjson, parsed, T0, type Raw } from "@/test/events";
import { useTempServerEnv } from "@/test/server-env";

const TOKEN = "sy_test_token_0123456789abcdefXY";
const SID = "exp-sess-1";
const ODD = `team/a"b'c\\d e;x=1.json`;
const CAUSES = ["cold", "diverged", "evicted", "routed_away", "unknown"] as const;

let restore: () => Promise<void>;
let GET: typeof import("./route").GET;
let closeDb: () => void;
let readToken: string;

/** Two routed turns on the main trajectory and one on a subagent, with tools and reasoning spans. */
function session(sid: string, p: string, h: number): Raw[] {
  const decision = (rid: string, at: number, traj: string) =>
    minimal["route.decision"]({
      id: `${p}-rd-${rid}`,
      ts: at,
      request_id: `${p}-${rid}`,
      session_id: sid,
      trajectory_id: traj,
      prompt_blocks: 3,
      chosen_worker_id: "w1",
      candidates: [
        { worker_id: "w1", overlap_blocks: 1, prefill_blocks: 2, decode_blocks: 0, cost: 2 },
        { worker_id: "w2", overlap_blocks: 0, prefill_blocks: 3, decode_blocks: 5, cost: 8 },
      ],
    });
  const request = (rid: string, at: number, traj: string, o: Raw) =>
    minimal.request({
      id: `${p}-req-${rid}`,
      request_id: `${p}-${rid}`,
      session_id: sid,
      trajectory_id: traj,
      harness: "claude_code",
      session_type: "coding",
      worker_id: "w1",
      arrived_at: at,
      first_token_at: at + 300,
      finished_at: at + 1_000,
      ts: at + 1_000,
      output_tokens: 40,
      reasoning_tokens: 7,
      block_size: 4,
      policy_versions: { retention: 3, routing: 2 },
      ...o,
    });
  return [
    decision("a", T0, "main"),
    request("a", T0, "main", {
      input_tokens: 14,
      cached_tokens: 0,
      sequence_hashes: [`${h + 1}`, `${h + 2}`, `${h + 3}`],
      local_hashes: ["11", "12", "13"],
    }),
    minimal.tool({
      id: `${p}-tool-1`,
      session_id: sid,
      trajectory_id: "main",
      request_id: `${p}-a`,
      tool_call_id: `${p}-call-1`,
      name: "Bash",
      started_at: T0 + 1_000,
      ended_at: T0 + 1_800,
      status: "succeeded",
      output_tokens: 120,
    }),
    minimal.reasoning({
      id: `${p}-rs-1`,
      request_id: `${p}-a`,
      tool_call_id: `${p}-call-1`,
      tokens: 30,
      started_at: T0 + 300,
      ended_at: T0 + 600,
    }),
    decision("c", T0 + 2_000, "sub-1"),
    request("c", T0 + 2_000, "sub-1", {
      parent_trajectory_id: "main",
      input_tokens: 8,
      cached_tokens: 0,
      sequence_hashes: [`${h + 7}`, `${h + 8}`],
      local_hashes: ["17", "18"],
    }),
    decision("b", T0 + 5_000, "main"),
    request("b", T0 + 5_000, "main", {
      input_tokens: 22,
      cached_tokens: 4,
      sequence_hashes: [`${h + 1}`, `${h + 2}`, `${h + 3}`, `${h + 4}`, `${h + 5}`],
      local_hashes: ["11", "12", "13", "14", "15"],
    }),
    minimal.reasoning({
      id: `${p}-rs-2`,
      request_id: `${p}-b`,
      tokens: 9,
      started_at: T0 + 5_300,
      ended_at: T0 + 5_500,
    }),
  ];
}

beforeAll(async () => {
  ({ restore } = await useTempServerEnv("switchyard-export-route-", TOKEN));
  ({ GET } = await import("./route"));
  const { serverEngine } = await import("@/server/runtime");
  const { insertEvents } = await import("@/db/sqlite/ingest");
  const { runAttribution } = await import("@/server/jobs/attribution");
  const { createToken } = await import("@/server/auth/tokens");
  const db = serverEngine().db!;
  closeDb = () => db.$client.close();
  const { sqliteStore } = await import("@/db/store/store");
  readToken = (await createToken(sqliteStore(db), { name: "export test", scope: "read", createdBy: "test" }, T0)).token;
  insertEvents(db, [...session(SID, "x", 100), ...session(ODD, "y", 200)].map(parsed));
  const { ingestBody } = await import("@/server/ingest/ingest");
  expect(ingestBody(db, ndjson(chainTurns()), "application/x-ndjson")).toMatchObject({ accepted: 6, rejected: 0 });
  expect(runAttribution(db).caughtUp).toBe(true);
});

afterAll(async () => {
  closeDb?.();
  await restore();
});

/** GET the export the way Next calls the handler (params decoded from the path). */
function get(id: string, token: string | null = readToken, query = ""): Promise<Response> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return GET(new Request(`http://localhost/api/sessions/${encodeURIComponent(id)}/export${query}`, { headers }), {
    params: Promise.resolve({ id }),
  });
}

const CHAINS_SID = "exp-chains";
const EDGES = ["0", "9223372036854775807", "9223372036854775808", "18446744073709551615"];
/** n distinct u64 decimal strings starting with the edge values; `salt` makes another chain. */
const chain = (n: number, salt: number) =>
  [
    ...EDGES,
    ...Array.from({ length: n - EDGES.length }, (_, i) => String(BigInt(i + 1) * 2_654_435_761n + BigInt(salt))),
  ].slice(0, n);
/** Chains of 1, 2,000 and 65,536 blocks, full, and each extended by a compact turn (prefix_of). */
function chainTurns(): Raw[] {
  const turn = (rid: string, at: number, traj: string, o: Raw) =>
    minimal.request({
      id: `ch-${rid}`,
      request_id: rid,
      session_id: CHAINS_SID,
      trajectory_id: traj,
      arrived_at: at,
      ts: at,
      input_tokens: 10,
      cached_tokens: 0,
      ...o,
    });
  const out: Raw[] = [];
  [1, 2_000, 65_536].forEach((n, k) => {
    const seq = chain(n, k);
    const local = chain(n, k + 10).reverse();
    out.push(turn(`c${n}`, T0 + k * 10, `t${k}`, { sequence_hashes: seq, local_hashes: local }));
    out.push(
      turn(`c${n}+`, T0 + k * 10 + 1, `t${k}`, {
        prefix_of: { request_id: `c${n}`, blocks: n },
        sequence_hashes: EDGES,
        local_hashes: [...EDGES].reverse(),
      }),
    );
  });
  return out;
}

/** The filename of an attachment Content-Disposition, or null when it is not one. */
function attachmentName(h: string | null): string | null {
  const m = /^attachment;\s*filename="([^"\\\r\n]*)"$/.exec(h ?? "");
  return m ? m[1]! : null;
}

type Exported = {
  schema: string;
  session: {
    id: string;
    harness: string | null;
    session_type: string | null;
    totals: { turns: number; input_tokens: number; cached_tokens: number; tool_calls: number };
  };
  trajectories: {
    trajectory_id: string;
    parent_trajectory_id: string | null;
    role: string;
    turns: {
      request_id: string;
      input_tokens: number;
      cached_tokens: number;
      output_tokens: number;
      reasoning_tokens: number | null;
      worker_id: string | null;
      runner_up: { worker_id: string } | null;
      policy_versions: Record<string, number> | null;
      recomputed: Record<(typeof CAUSES)[number], number> | null;
    }[];
    tools: { tool_call_id: string; name: string; reasoning: { tokens: number }[] }[];
    reasoning: { tokens: number; request_id: string }[];
  }[];
};

describe("GET /api/sessions/[id]/export", () => {
  it("needs a session or a read token: none, an unknown one or an ingest token is 401", async () => {
    expect((await get(SID, null)).status).toBe(401);
    expect((await get(SID, "sy_read_not-a-real-token-0123456789")).status).toBe(401);
    expect((await get(SID, TOKEN)).status).toBe(401);
  });

  it("downloads the session as an attached JSON file", async () => {
    const res = await get(SID);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
    expect(attachmentName(res.headers.get("content-disposition"))).toBe(`session-${SID}.json`);
  });

  it("holds the session, its trajectories and every turn with tokens, worker, runner-up and policy versions", async () => {
    const doc = (await (await get(SID)).json()) as Exported;
    expect(doc.schema).toBe("switchyard.session.v1");
    expect(doc.session).toMatchObject({
      id: SID,
      harness: "claude_code",
      session_type: "coding",
      totals: { turns: 3, input_tokens: 44, cached_tokens: 4, tool_calls: 1 },
    });
    expect(doc.trajectories.map((t) => [t.trajectory_id, t.role, t.parent_trajectory_id])).toEqual([
      ["main", "main", null],
      ["sub-1", "subagent", "main"],
    ]);
    const [main, sub] = doc.trajectories;
    expect(main!.turns.map((u) => u.request_id)).toEqual(["x-a", "x-b"]);
    expect(sub!.turns.map((u) => u.request_id)).toEqual(["x-c"]);
    expect(main!.turns[1]).toMatchObject({
      input_tokens: 22,
      cached_tokens: 4,
      output_tokens: 40,
      reasoning_tokens: 7,
      worker_id: "w1",
      runner_up: { worker_id: "w2" },
      policy_versions: { retention: 3, routing: 2 },
    });
  });

  it("gives every turn its recomputed tokens by cause, summing to input − cached", async () => {
    const doc = (await (await get(SID)).json()) as Exported;
    const turns = doc.trajectories.flatMap((t) => t.turns);
    expect(turns).toHaveLength(3);
    for (const u of turns) {
      expect(u.recomputed, u.request_id).not.toBeNull();
      expect(Object.keys(u.recomputed!).sort()).toEqual([...CAUSES].sort());
      for (const c of CAUSES) expect(u.recomputed![c]).toBeGreaterThanOrEqual(0);
      expect(
        CAUSES.reduce((s, c) => s + u.recomputed![c], 0),
        u.request_id,
      ).toBe(u.input_tokens - u.cached_tokens);
    }
    // The first turn has nothing before it: all of its full blocks are cold.
    expect(turns.find((u) => u.request_id === "x-a")!.recomputed!.cold).toBeGreaterThan(0);
  });

  it("holds the tools with their reasoning and the lane's own reasoning spans", async () => {
    const doc = (await (await get(SID)).json()) as Exported;
    const main = doc.trajectories[0]!;
    expect(main.tools).toHaveLength(1);
    expect(main.tools[0]).toMatchObject({ tool_call_id: "x-call-1", name: "Bash", reasoning: [{ tokens: 30 }] });
    expect(main.reasoning).toEqual([expect.objectContaining({ tokens: 9, request_id: "x-b" })]);
    expect(doc.trajectories[1]!.tools).toEqual([]);
  });

  it("names the file safely for an id with slashes, quotes, backslashes and spaces", async () => {
    const res = await get(ODD);
    expect(res.status).toBe(200);
    const name = attachmentName(res.headers.get("content-disposition"));
    expect(name).not.toBeNull();
    expect(name).toMatch(/^session-[\w.-]+\.json$/);
    expect(name).not.toMatch(/[/\\"';\s]/);
    expect(((await res.json()) as Exported).session.id).toBe(ODD);
  });

  it.each([
    ["an unknown id", "no-such-session"],
    ["an unknown id with path characters", "../../etc/passwd"],
  ])("%s → 404 JSON without a stack trace", async (_name, id) => {
    const res = await get(id);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
    expect(res.headers.get("content-disposition")).toBeNull();
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "session not found" });
    expect(text).not.toMatch(/\bat .*\(|\.ts:\d+|Error:/);
  });

  it("an id too long to be a session → a 4xx JSON error, not a server error, without a stack trace or the validator's dump", async () => {
    const res = await get("s".repeat(500));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: expect.any(String) });
    expect(text).not.toMatch(/\bat .*\(|\.ts:\d+|too_big|ZodError|"path"/);
  });

  it("?chains=1 gives every turn its exact chains: u64 edges, 1, 2,000 and 65,536 blocks, full or compact as sent", async () => {
    const res = await get(CHAINS_SID, readToken, "?chains=1");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      trajectories: { turns: { request_id: string; sequence_hashes: string[]; local_hashes: string[] }[] }[];
    };
    const got = new Map(doc.trajectories.flatMap((t) => t.turns).map((u) => [u.request_id, u]));
    [1, 2_000, 65_536].forEach((n, k) => {
      const seq = chain(n, k);
      const local = chain(n, k + 10).reverse();
      expect(got.get(`c${n}`)?.sequence_hashes, `c${n}`).toEqual(seq);
      expect(got.get(`c${n}`)?.local_hashes, `c${n}`).toEqual(local);
      expect(got.get(`c${n}+`)?.sequence_hashes, `c${n}+`).toEqual([...seq, ...EDGES]);
      expect(got.get(`c${n}+`)?.local_hashes, `c${n}+`).toEqual([...local, ...[...EDGES].reverse()]);
    });
  });

  it("leaves the chains out without ?chains=1, and gives null lists to turns that carried none", async () => {
    const plain = (await (await get(CHAINS_SID)).json()) as { trajectories: { turns: Record<string, unknown>[] }[] };
    expect(plain.trajectories[0]!.turns[0]).not.toHaveProperty("sequence_hashes");
    const withChains = (await (await get(SID, readToken, "?chains=1")).json()) as Exported & {
      trajectories: { turns: { sequence_hashes: string[] | null }[] }[];
    };
    expect(withChains.trajectories[0]!.turns[1]!.sequence_hashes).toEqual(["101", "102", "103", "104", "105"]);
  });
});
