import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { IngestRow } from "../../../db/rows/ingest";
import type { PgDb } from "../../../db/pg/client";
import { forgetRecentRequests, insertEventsPg } from "../../../db/pg/ingest";
import { storedChainColumns, wholeChainsPg, type StoredChains } from "../../../db/pg/chains";
import { deleteBatchBeforePg } from "../../../db/pg/retention";
import { requestsAfterPg } from "../../../db/pg/attribution";
import { windowRequestsPg } from "../../../db/pg/preview-window";
import { sessionChainsOf } from "../../../db/store/export";
import { pgStore } from "../../../db/store/store";
import { ChainMemo } from "../../../db/sqlite/chain-memo";
import { decodeHashes, HASH_BYTES } from "../../../db/codecs/chains";
import { minimal, parsed, T0, turn, type Raw } from "../../../test/events";
import { freshPg, PG_TEST_URL } from "../../../test/pg";
import { resolvePrefix } from "../prefix";

// PostgreSQL stores a turn whose prefix_of names a stored request as that row's chain base and its own hashes only
// (db/pg/chains.ts). Every reader gets the chains whole, however far back the bases go, and retention stores a
// deleted row's dependents whole first.

const hashes = (from: number, n: number, salt = 0) =>
  Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 1_000_003n + BigInt(salt)));
/** Turn k of the trajectory: 3k blocks, local hashes salted. */
const seqOf = (k: number) => hashes(0, 3 * k);
const localOf = (k: number) => hashes(0, 3 * k, 7);
const TURNS = 30;

describe.skipIf(!PG_TEST_URL)("PostgreSQL request chains stored after their chain base", () => {
  let pg: PgDb;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
  });
  afterAll(() => drop?.());
  beforeEach(async () => {
    await pg.$client`TRUNCATE requests RESTART IDENTITY`;
    forgetRecentRequests(pg);
  });

  const store = (raws: Raw[]) => insertEventsPg(pg, raws.map(parsed) as IngestRow[], { resolvePrefix: resolvePrefix });
  /** Turns 1…n, each naming the one before, one batch each (turn 1 whole). */
  async function trajectory(n: number): Promise<void> {
    for (let k = 1; k <= n; k++) {
      const o: Raw =
        k === 1
          ? { sequence_hashes: seqOf(1), local_hashes: localOf(1) }
          : {
              prefix_of: { request_id: `r${k - 1}`, blocks: 3 * (k - 1) },
              sequence_hashes: seqOf(k).slice(3 * (k - 1)),
              local_hashes: localOf(k).slice(3 * (k - 1)),
            };
      expect(await store([turn(k, o)])).toEqual(["accepted"]);
    }
  }
  const storedRows = (where = "TRUE") =>
    pg.$client.unsafe<StoredChains[]>(`SELECT ${storedChainColumns()} FROM requests WHERE ${where} ORDER BY rid`);
  const asStrings = (c: { seq: Buffer | null; local: Buffer | null }) => ({
    seq: decodeHashes(c.seq),
    local: decodeHashes(c.local),
  });

  it("each turn holds only its own hashes, and reads back whole alone, all together or through a small memo", async () => {
    await trajectory(TURNS);
    const all = await storedRows();
    expect(all).toHaveLength(TURNS);
    for (const [i, r] of all.entries()) {
      const k = i + 1;
      expect(r.base).toBe(k === 1 ? null : `ev-${k - 1}`);
      expect(r.seq!.byteLength / HASH_BYTES).toBe(3);
      expect([r.seqCount, r.localCount]).toEqual([3 * k, 3 * k]);
    }
    const want = (k: number) => ({ seq: seqOf(k), local: localOf(k) });
    // The last turn alone: its 29 bases are read in one query.
    const last = await wholeChainsPg(pg.$client, await storedRows(`id = 'ev-${TURNS}'`));
    expect(asStrings(last.get(`ev-${TURNS}`)!)).toEqual(want(TURNS));
    const together = await wholeChainsPg(pg.$client, all);
    for (let k = 1; k <= TURNS; k++) expect(asStrings(together.get(`ev-${k}`)!)).toEqual(want(k));
    // A memo too small for more than a few chains: bases it held when the read began are still used.
    const memo = new ChainMemo(3 * 2 * 90 * HASH_BYTES);
    for (let k = 1; k <= TURNS; k += 4) {
      const some = await wholeChainsPg(pg.$client, await storedRows(`rid BETWEEN ${k} AND ${k + 3}`), memo);
      for (let j = k; j <= Math.min(TURNS, k + 3); j++) expect(asStrings(some.get(`ev-${j}`)!)).toEqual(want(j));
    }
  });

  it("the attribution job's, the preview window's and the export's reads give whole chains", async () => {
    await trajectory(12);
    const want = (k: number) => ({ seq: seqOf(k), local: localOf(k) });
    const job = await requestsAfterPg(pg.$client, 4, 100, 100);
    expect(job.map((r) => r.id)).toEqual(Array.from({ length: 8 }, (_, i) => `ev-${i + 5}`));
    for (const r of job) expect(asStrings(r)).toEqual(want(Number(r.id.slice(3))));
    const s = pgStore(pg);
    const window = await windowRequestsPg(s, T0 + 6_000, T0 + 9_000, 100);
    expect(window.map((r) => [r.id, decodeHashes(r.chain), decodeHashes(r.firstSeq)])).toEqual(
      [6, 7, 8].map((k) => [`ev-${k}`, localOf(k), seqOf(1).slice(0, 1)]),
    );
    const exported = await sessionChainsOf(s, "s1");
    for (let k = 1; k <= 12; k++)
      expect(exported.get(`r${k}`)).toEqual({ sequence_hashes: seqOf(k), local_hashes: localOf(k) });
  });

  it("retention stores the dependents of the rows it deletes whole first, and the chains after them read the same", async () => {
    await trajectory(8);
    // Turns 1–5 arrived before the cutoff; turn 6 names turn 5.
    expect(await deleteBatchBeforePg(pg.$client, "requests", "arrived_at", T0 + 5_500, 100)).toBe(5);
    const left = await storedRows();
    expect(left.map((r) => [r.id, r.base])).toEqual([
      ["ev-6", null],
      ["ev-7", "ev-6"],
      ["ev-8", "ev-7"],
    ]);
    const whole = await wholeChainsPg(pg.$client, left);
    for (const k of [6, 7, 8]) expect(asStrings(whole.get(`ev-${k}`)!)).toEqual({ seq: seqOf(k), local: localOf(k) });
  });

  it("a turn naming a row of a batch still in flight names that row's own base, sharing the least of the two", async () => {
    await store([minimal.tool({ id: "warm-up" })]); // the day's partitions exist before the lock below
    await trajectory(1);
    const blocker = await pg.$client.reserve();
    try {
      await blocker`BEGIN`;
      await blocker`LOCK TABLE tools IN ACCESS EXCLUSIVE MODE`;
      // Turn 2 (6 blocks, naming turn 1) waits behind the lock in a batch with a tool call.
      const second = { prefix_of: { request_id: "r1", blocks: 3 }, sequence_hashes: seqOf(2).slice(3) };
      const first = store([turn(2, { ...second, local_hashes: localOf(2).slice(3) }), minimal.tool({ id: "held" })]);
      for (let waiting = 0; waiting === 0;)
        waiting = Number(
          (await pg.$client`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)[0]!.n,
        );
      const third = {
        prefix_of: { request_id: "r2", blocks: 6 },
        sequence_hashes: seqOf(3).slice(6),
        local_hashes: localOf(3).slice(6),
      };
      expect(await store([turn(3, third)])).toEqual(["accepted"]);
      await blocker`COMMIT`;
      expect(await first).toEqual(["accepted", "accepted"]);
    } finally {
      blocker.release();
    }
    const rows = await storedRows();
    expect(rows.map((r) => [r.id, r.base, r.seqShared, r.localShared, r.seq!.byteLength / HASH_BYTES])).toEqual([
      ["ev-1", null, 0, 0, 3],
      ["ev-3", "ev-1", 3, 3, 6],
      ["ev-2", "ev-1", 3, 3, 3],
    ]);
    const whole = await wholeChainsPg(pg.$client, rows);
    for (const k of [1, 2, 3]) expect(asStrings(whole.get(`ev-${k}`)!)).toEqual({ seq: seqOf(k), local: localOf(k) });
  });

  it("a turn naming a row deleted behind this process's back fails its batch, nothing stored; sent again it is unknown", async () => {
    await trajectory(2);
    await pg.$client`DELETE FROM requests WHERE id = 'ev-2'`;
    const next = turn(3, { prefix_of: { request_id: "r2", blocks: 6 }, sequence_hashes: hashes(6, 3) });
    await expect(store([next])).rejects.toThrow(/named by prefix_of was deleted/);
    expect((await storedRows()).map((r) => r.id)).toEqual(["ev-1"]);
    expect(await store([next])).toEqual([expect.objectContaining({ status: "rejected", code: "unknown_prefix" })]);
  });

  it("a stored row naming a base that is not there is an error, not a short chain", async () => {
    await trajectory(1);
    await pg.$client`INSERT INTO requests (id, ts, request_id, api, model, arrived_at, input_tokens, cached_tokens,
        output_tokens, status, sequence_hashes, chain_base, seq_shared, seq_count)
      VALUES ('orphan', ${T0}, 'r-orphan', 'chat', 'm', ${T0}, 8, 0, 4, 'ok', ${Buffer.alloc(8)}, 'gone', 2, 3)`;
    await expect(wholeChainsPg(pg.$client, await storedRows("id = 'orphan'"))).rejects.toThrow(/missing base gone/);
  });
});
