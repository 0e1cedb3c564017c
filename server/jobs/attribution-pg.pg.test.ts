// The attribution job on PostgreSQL computes what SQLite's computes: one input ingested by each engine's own ingest,
// each engine's job run until caught up, then request_causes (by request id: rids differ), causes_1m and
// session_summaries compared row for row.
import { afterEach, describe, expect, it } from "vitest";
import type { PgDb } from "../../db/pg/client";
import { insertEventsPg } from "../../db/pg/ingest";
import { insertEvents } from "../../db/sqlite/ingest";
import type { IngestRow } from "../../db/rows/ingest";
import type { Db } from "../../db/sqlite/client";
import { testDb } from "../../test/db";
import { minimal, ndjson, parsed, T0, type Raw } from "../../test/events";
import { freshPg, PG_TEST_URL } from "../../test/pg";
import { ingestBodyTallied } from "../ingest/ingest";
import { ingestBodyPg } from "../ingest/pg/ingest-body";
import { ChainCompactor } from "../sim/compact-chains";
import { runScenario } from "../sim/test-support";
import { runAttribution } from "./attribution";
import { pgAttribution, runAttributionPg } from "./attribution-pg";
import { pruneIndexPg } from "./attribution-pg-loop";
import { startAttributionThread } from "./attribution-thread";

const BS = 4;
let n = 0;
const id = (p: string) => `${p}-${++n}`;
const req = (o: {
  rid: string;
  at: number;
  worker: string;
  seq: string[];
  local?: string[];
  session?: string;
  cached?: number;
  retention?: number;
}): Raw =>
  minimal.request({
    id: id("req"),
    ts: o.at + 50,
    request_id: o.rid,
    session_id: o.session ?? "s1",
    trajectory_id: `${o.session ?? "s1"}-main`,
    worker_id: o.worker,
    arrived_at: o.at,
    first_token_at: o.at + 10,
    finished_at: o.at + 50,
    input_tokens: o.seq.length * BS,
    cached_tokens: o.cached ?? 0,
    block_size: BS,
    sequence_hashes: o.seq,
    ...(o.local ? { local_hashes: o.local } : {}),
    policy_versions: { retention: o.retention ?? 1 },
  });
const stored = (worker: string, ts: number, hashes: string[], o: Raw = {}) =>
  minimal["kv.stored"]({ id: id("kvs"), ts, worker_id: worker, block_hashes: hashes, ...o });
const removed = (worker: string, ts: number, hashes: string[], reason: string, o: Raw = {}) =>
  minimal["kv.removed"]({ id: id("kvr"), ts, worker_id: worker, block_hashes: hashes, reason, ...o });
const decision = (rid: string, ts: number, chosen: string, overlaps: Record<string, number>) =>
  minimal["route.decision"]({
    id: id("rd"),
    ts,
    request_id: rid,
    prompt_blocks: 3,
    chosen_worker_id: chosen,
    candidates: Object.entries(overlaps).map(([w, o]) => ({
      worker_id: w,
      overlap_blocks: o,
      prefill_blocks: 3 - o,
      decode_blocks: 0,
      cost: 3 - o,
    })),
  });
const tool = (session: string, at: number, ms: number) =>
  minimal.tool({
    id: id("tool"),
    ts: at + ms,
    session_id: session,
    tool_call_id: id("tc"),
    started_at: at,
    ended_at: at + ms,
    status: "succeeded",
  });

const A = ["11", "12", "13"];
const B = ["21", "22", "23"];
const LA = ["101", "102", "103"];
const big = (k: number) =>
  Array.from({ length: 3 }, (_, i) => String(18_000_000_000_000_000_000n + BigInt(k * 10 + i)));

/** Hand-made inputs (the miss causes of attribution.test.ts), each one batch of events. */
const CASES: [string, () => Raw[]][] = [
  ["cold start", () => [req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA })]],
  [
    "routed away by the router, and without a decision",
    () => [
      stored("w1", T0, A),
      decision("r2", T0 + 10, "w2", { w1: 3, w2: 0 }),
      req({ rid: "r2", at: T0 + 10, worker: "w2", seq: A, local: LA }),
      req({ rid: "r3", at: T0 + 20, worker: "w3", seq: A, local: LA }),
    ],
  ],
  [
    "evicted on the same worker, with the retention version in force; a lower tier's store and removal",
    () => [
      req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA, retention: 3 }),
      stored("w1", T0 + 60, A),
      removed("w1", T0 + 500, A, "capacity"),
      stored("w1", T0 + 600, B, { storage_tier: "host" }),
      removed("w1", T0 + 700, B, "capacity", { storage_tier: "host" }),
      req({ rid: "r2", at: T0 + 1_000, worker: "w1", seq: A, local: LA, retention: 4 }),
      req({ rid: "r3", at: T0 + 1_100, worker: "w2", seq: B, local: LA }),
    ],
  ],
  [
    "a per-session header: block 0 new, the identical rest diverged; a cleared worker",
    () => [
      req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA, session: "s1" }),
      stored("w1", T0 + 60, A),
      minimal["kv.cleared"]({ id: id("kvc"), ts: T0 + 200, worker_id: "w1" }),
      req({
        rid: "r2",
        at: T0 + 1_000,
        worker: "w1",
        seq: ["91", "92", "93"],
        local: ["999", "102", "103"],
        session: "s2",
      }),
      req({ rid: "r3", at: T0 + 2_000, worker: "w1", seq: A, session: "s3" }),
    ],
  ],
  [
    "hashes at the top of the u64 range, tools between turns, several sessions",
    () => [
      req({ rid: "r1", at: T0, worker: "w1", seq: big(1), local: big(2), session: "s1" }),
      tool("s1", T0 + 100, 400),
      stored("w1", T0 + 60, big(1)),
      req({
        rid: "r2",
        at: T0 + 1_000,
        worker: "w1",
        seq: [...big(1), "7"],
        local: [...big(2), "8"],
        cached: 12,
        session: "s1",
      }),
      tool("s2", T0 + 1_500, 50),
      req({ rid: "r3", at: T0 + 2_000, worker: "w2", seq: big(1), session: "s2" }),
      removed("w1", T0 + 2_500, big(1), "agent_end"),
      req({ rid: "r4", at: T0 + 3_000, worker: "w1", seq: big(1), session: "s1" }),
    ],
  ],
];

/** Rows as plain values, so both engines' rows compare. */
const plain = (rows: readonly Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])));

const CAUSES = `SELECT r.id, rc.arrived_at, rc.recomputed, rc.cold, rc.diverged, rc.evicted, rc.routed_away, rc.unknown,
  rc.evicted_reason, rc.retention_version, rc.held_tokens, rc.wait_ms, rc.survived_tokens
  FROM request_causes rc JOIN requests r ON r.RID = rc.rid ORDER BY r.id`;

async function outputs(db: Db, pg: PgDb) {
  const tables: [string, string][] = [
    ["causes", CAUSES],
    ["causes_1m", "SELECT * FROM causes_1m ORDER BY minute"],
    ["session_summaries", "SELECT * FROM session_summaries ORDER BY session_id"],
  ];
  const out: { table: string; sqlite: unknown[]; pg: unknown[] }[] = [];
  for (const [table, q] of tables)
    out.push({
      table,
      sqlite: plain(db.$client.prepare(q.replace("RID", "rowid")).all() as Record<string, unknown>[]),
      pg: plain(await pg.$client.unsafe(q.replace("RID", "rid"))),
    });
  return out;
}

describe.skipIf(!PG_TEST_URL)("the attribution job on PostgreSQL gives SQLite's outputs", () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
    drop = undefined;
  });

  async function both(store: (db: Db, pg: PgDb) => Promise<void>) {
    const db = testDb();
    const fresh = await freshPg();
    drop = fresh.drop;
    await store(db, fresh.pg);
    runAttribution(db);
    const r = await runAttributionPg(pgAttribution(fresh.pg, 0));
    expect(r.caughtUp).toBe(true);
    return outputs(db, fresh.pg);
  }

  it.each(CASES)("%s", async (_name, make) => {
    const events = make().map(parsed);
    const out = await both(async (db, pg) => {
      insertEvents(db, events);
      await insertEventsPg(pg, events as IngestRow[]);
    });
    expect(out[0]!.sqlite.length).toBe(events.filter((e) => e.kind === "request").length);
    for (const t of out) expect({ table: t.table, rows: t.pg }).toEqual({ table: t.table, rows: t.sqlite });
  });

  // Compact chains: each turn names its trajectory's previous request, and PostgreSQL stores only its own hashes after
  // that row's (db/pg/chains.ts): the job reads them whole.
  it.each([
    ["full lists", false],
    ["compact chains (prefix_of)", true],
  ])(
    "the steady scenario's first 90 simulated seconds, posted in batches of 400: %s",
    async (_name, compact) => {
      const events = runScenario({ scenario: "steady", seconds: 90 });
      const compactor = new ChainCompactor();
      const lines = events.map((e) => (compact ? compactor.line(e).line : JSON.stringify(e)));
      const out = await both(async (db, pg) => {
        for (let i = 0; i < lines.length; i += 400) {
          const body = lines.slice(i, i + 400).join("\n") + "\n";
          ingestBodyTallied(db, body, "application/x-ndjson");
          await ingestBodyPg(pg, body, "application/x-ndjson");
        }
        const [based] = await pg.$client<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM requests WHERE chain_base IS NOT NULL`;
        if (compact) expect(based!.n).toBeGreaterThan(100);
        else expect(based!.n).toBe(0);
      });
      const causes = out[0]!.sqlite as { evicted: number; routed_away: number; cold: number }[];
      expect(causes.length).toBeGreaterThan(100);
      expect(causes.some((c) => c.cold > 0)).toBe(true);
      for (const t of out) expect({ table: t.table, rows: t.pg }).toEqual({ table: t.table, rows: t.sqlite });
    },
    300_000,
  );

  it("does not read past a request numbered before it whose transaction is still open, and judges both once it commits", async () => {
    const fresh = await freshPg();
    drop = fresh.drop;
    const pg = fresh.pg;
    const causes = async () =>
      (
        await pg.$client<
          { id: string }[]
        >`SELECT r.id FROM request_causes rc JOIN requests r ON r.rid = rc.rid ORDER BY r.id`
      ).map((r) => r.id);
    const job = pgAttribution(pg, 0);
    const open = await pg.$client.reserve();
    try {
      await open`BEGIN`;
      await open`INSERT INTO requests (id, ts, request_id, api, model, arrived_at, input_tokens, cached_tokens, output_tokens, status)
        VALUES ('in-flight', ${T0}, 'r-open', 'chat', 'm', ${T0}, 8, 0, 4, 'ok')`;
      await insertEventsPg(pg, [parsed(req({ rid: "r-later", at: T0 + 10, worker: "w1", seq: A }))] as IngestRow[]);
      // Not caught up while the earlier row's transaction is open: a few steps read nothing and say so.
      expect((await runAttributionPg(job, 20)).caughtUp).toBe(false);
      expect(await causes()).toEqual([]);
      await open`COMMIT`;
    } finally {
      open.release();
    }
    await runAttributionPg(job);
    const judged = await causes();
    expect(judged).toHaveLength(2);
    expect(judged).toContain("in-flight");
  });

  it("prunes intervals ended before the cutoff and the rows left with nothing newer; resident blocks stay", async () => {
    const fresh = await freshPg();
    drop = fresh.drop;
    const pg = fresh.pg;
    const count = async (t: string) => Number((await pg.$client.unsafe(`SELECT count(*) AS n FROM ${t}`))[0]!.n);
    const ended = CASES[2]![1]().map(parsed);
    const resident = [stored("w9", T0, ["5001", "5002"])].map(parsed);
    await insertEventsPg(pg, [...ended, ...resident] as IngestRow[]);
    const job = pgAttribution(pg, 0);
    await runAttributionPg(job);
    const [blocks, locals] = [await count("attr_blocks"), await count("attr_local")];
    expect(blocks).toBeGreaterThan(2);
    expect(locals).toBeGreaterThan(0);
    expect(await pruneIndexPg(job, T0 - 1)).toBe(0);
    expect([await count("attr_blocks"), await count("attr_local")]).toEqual([blocks, locals]);
    await pruneIndexPg(job, T0 + 3_600_000);
    const left = await pg.$client<{ h: string }[]>`SELECT hash::text AS h FROM attr_blocks ORDER BY hash`;
    expect(left.map((r) => r.h)).toEqual(["5001", "5002"]);
    expect(await count("attr_local")).toBe(0);
  });

  it("runs in its worker thread on its own PostgreSQL pool and judges what ingest stored meanwhile", async () => {
    const fresh = await freshPg();
    drop = fresh.drop;
    const stop = startAttributionThread({ databaseUrl: fresh.url }, 24);
    try {
      const events = CASES[1]![1]().map(parsed);
      await insertEventsPg(fresh.pg, events as IngestRow[]);
      const judged = async () => Number((await fresh.pg.$client`SELECT count(*) AS n FROM request_causes`)[0]!.n);
      const until = Date.now() + 60_000;
      while ((await judged()) < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(await judged()).toBe(2);
    } finally {
      await stop();
    }
  }, 90_000);
});
