import { expect, test, type APIRequestContext } from "@playwright/test";
import { INGEST_TOKEN, postEvents, uniq } from "./fixtures/telemetry";

// A session sent with compact chains (prefix_of) reads back exactly like the same session sent with full lists.

const EDGES = ["0", "9223372036854775807", "9223372036854775808", "18446744073709551615"];
const hashes = (from: number, to: number, salt: bigint) =>
  Array.from({ length: to - from }, (_, i) =>
    String((BigInt(from + i) * 6_364_136_223_846_793_005n + salt) % 18_446_744_073_709_551_616n),
  );

type Turn = { rid: string; traj: string; parent?: string; seq: string[]; local: string[] };

/** Main agent: 3 turns growing from 2,000 blocks (the third after a compaction shares only 100); a subagent: 2 turns. */
function turns(): Turn[] {
  const sys = [...EDGES, ...hashes(4, 2_000, 1n)];
  const sysLocal = [...EDGES, ...hashes(4, 2_000, 2n)].reverse();
  const sub = hashes(0, 300, 3n);
  return [
    { rid: "m1", traj: "main", seq: sys, local: sysLocal },
    {
      rid: "m2",
      traj: "main",
      seq: [...sys, ...hashes(2_000, 2_040, 1n)],
      local: [...sysLocal, ...hashes(2_000, 2_040, 2n)],
    },
    {
      rid: "m3",
      traj: "main",
      seq: [...sys.slice(0, 100), ...hashes(5_000, 5_010, 1n)],
      local: [...sysLocal.slice(0, 100), ...hashes(5_000, 5_010, 2n)],
    },
    { rid: "s1", traj: "sub", parent: "main", seq: sub, local: sub },
    { rid: "s2", traj: "sub", parent: "main", seq: [...sub, ...EDGES], local: [...sub, "1"] },
  ];
}

/** The request events of the session; compact: each turn after the first of its trajectory names the previous one. */
function events(sid: string, p: string, compact: boolean, now = Date.now() - 60_000): object[] {
  const last = new Map<string, Turn>();
  return turns().map((t, i) => {
    const prev = last.get(t.traj);
    last.set(t.traj, t);
    const shared = prev ? prev.seq.findIndex((h, k) => h !== t.seq[k] || prev.local[k] !== t.local[k]) : -1;
    const blocks = shared === -1 ? Math.min(prev?.seq.length ?? 0, t.seq.length) : shared;
    const chains =
      compact && prev
        ? {
            prefix_of: { request_id: `${p}-${prev.rid}`, blocks },
            sequence_hashes: t.seq.slice(blocks),
            local_hashes: t.local.slice(blocks),
          }
        : { sequence_hashes: t.seq, local_hashes: t.local };
    const at = now + i * 1_000;
    return {
      id: `${p}-ev-${t.rid}`,
      kind: "request",
      ts: at + 500,
      request_id: `${p}-${t.rid}`,
      session_id: sid,
      trajectory_id: `${p}-${t.traj}`,
      ...(t.parent ? { parent_trajectory_id: `${p}-${t.parent}` } : {}),
      harness: "claude_code",
      api: "messages",
      model: "e2e-model",
      worker_id: "w-e2e",
      arrived_at: at,
      first_token_at: at + 100,
      finished_at: at + 500,
      input_tokens: t.seq.length * 16,
      cached_tokens: 0,
      output_tokens: 10,
      status: "ok",
      block_size: 16,
      ...chains,
    };
  });
}

type Exported = {
  session: { totals: unknown };
  trajectories: {
    role: string;
    turns: { request_id: string; sequence_hashes: string[] | null; local_hashes: string[] | null }[];
  }[];
};

async function exportChains(request: APIRequestContext, sid: string): Promise<Exported> {
  const res = await request.get(`/api/sessions/${encodeURIComponent(sid)}/export?chains=1`);
  expect(res.status()).toBe(200);
  return (await res.json()) as Exported;
}

/** The chains per turn in lane order, request ids reduced to the turn's name (the part after the sender's prefix). */
const chainsByTurn = (doc: Exported, p: string) =>
  doc.trajectories.map((l) => ({
    role: l.role,
    turns: l.turns.map((u) => ({
      turn: u.request_id.slice(p.length + 1),
      seq: u.sequence_hashes,
      local: u.local_hashes,
    })),
  }));

test("a session sent in compact form exports the same chains as the same session sent with full lists", async ({
  page,
  request,
}) => {
  const [pc, pf] = [uniq("cc"), uniq("cf")];
  const [compactSid, fullSid] = [`${pc}-session`, `${pf}-session`];
  const now = Date.now() - 60_000;
  const compact = events(compactSid, pc, true, now);
  const full = events(fullSid, pf, false, now);
  // Compact lines carry only what each turn adds: 2,000 + 40 + 10 (after the divergence) + 300 + 4 sequence hashes.
  const carried = (list: object[]) =>
    list.reduce((n, e) => n + (e as { sequence_hashes: string[] }).sequence_hashes.length, 0);
  expect([carried(compact), carried(full)]).toEqual([2_354, 4_754]);
  await postEvents(request, compact);
  await postEvents(request, full);

  const [a, b] = [await exportChains(request, compactSid), await exportChains(request, fullSid)];
  expect(chainsByTurn(a, pc)).toEqual(chainsByTurn(b, pf));
  // The token figures match (miss causes may differ: the second session's blocks were already seen in the first).
  const figures = ({ turns, inputTokens, cachedTokens, outputTokens, from, to }: Record<string, unknown>) => ({
    turns,
    inputTokens,
    cachedTokens,
    outputTokens,
    from,
    to,
  });
  expect(figures(a.session.totals as Record<string, unknown>)).toEqual(
    figures(b.session.totals as Record<string, unknown>),
  );
  const main = chainsByTurn(a, pc).find((l) => l.role === "main")!;
  expect(main.turns.map((u) => u.turn)).toEqual(["m1", "m2", "m3"]);
  expect(main.turns[1]!.seq).toEqual(turns()[1]!.seq);
  expect(main.turns[0]!.seq!.slice(0, 4)).toEqual(EDGES);

  // The trace page shows every turn of the compact session.
  await page.goto(`/sessions/${encodeURIComponent(compactSid)}`);
  await expect(page.getByRole("heading", { name: `Session ${compactSid}`, level: 1 })).toBeVisible();
  await expect(page.getByRole("table", { name: "Turns" }).getByRole("rowgroup").nth(1).getByRole("row")).toHaveCount(5);
});

test("a compact request whose prefix the dashboard does not hold is refused alone (unknown_prefix); re-sent in full it is stored", async ({
  request,
}) => {
  const p = uniq("cu");
  const [first, second] = events(`${p}-session`, p, true).slice(0, 2) as Record<string, unknown>[];
  const post = (lines: object[]) =>
    request.post("/api/ingest", {
      headers: { Authorization: `Bearer ${INGEST_TOKEN}`, "Content-Type": "application/x-ndjson" },
      data: lines.map((l) => JSON.stringify(l)).join("\n"),
    });
  const res = await post([second!, { ...first!, id: `${p}-other`, request_id: `${p}-unrelated` }]);
  expect(res.status()).toBe(200);
  const reply = (await res.json()) as {
    accepted: number;
    rejected: number;
    items: { status: string; code?: string; error?: string }[];
  };
  expect(reply).toMatchObject({ accepted: 1, rejected: 1 });
  expect(reply.items[0]).toMatchObject({ status: "rejected", code: "unknown_prefix" });
  expect(reply.items[0]!.error).toMatch(/prefix_of/);

  const { prefix_of: _, ...rest } = second!;
  await postEvents(request, [{ ...rest, sequence_hashes: turns()[1]!.seq, local_hashes: turns()[1]!.local }]);
  const doc = await exportChains(request, `${p}-session`);
  const turn = doc.trajectories.flatMap((l) => l.turns).find((u) => u.request_id === `${p}-m2`)!;
  expect(turn.sequence_hashes).toEqual(turns()[1]!.seq);
});
