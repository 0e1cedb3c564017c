import { beforeEach, describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { minimal, ndjson, T0, turn, type Raw } from "../../test/events";
import { ingestBody } from "./ingest";
import type { Db } from "../../db/sqlite/client";
import { chainStringsOf, forgetChains, sessionChains } from "../../db/sqlite/chains";
import { deleteBatchBefore } from "../../db/sqlite/retention";

const NDJSON = "application/x-ndjson";
const range = (from: number, to: number, salt = 0) =>
  Array.from({ length: to - from }, (_, i) => String(BigInt(from + i) * 1_000_003n + BigInt(salt)));

type Stored = { seq: Buffer | null; local: Buffer | null; base: string | null; seqShared: number; localShared: number };
const stored = (db: Db, id: string) =>
  db.$client
    .prepare(
      "SELECT sequence_hashes AS seq, local_hashes AS local, chain_base AS base, seq_shared AS seqShared, local_shared AS localShared FROM requests WHERE id = ?",
    )
    .get(id) as Stored;

let db: Db;
beforeEach(() => {
  db = testDb();
});

describe("compact chains on ingest (prefix_of)", () => {
  it("stores only the new hashes and reads back the exact chains, also when the prefix is earlier in the same batch", () => {
    const reply = ingestBody(
      db,
      ndjson([
        turn(1, { sequence_hashes: range(0, 100), local_hashes: range(0, 100, 7) }),
        turn(2, {
          prefix_of: { request_id: "r1", blocks: 100 },
          sequence_hashes: range(100, 120),
          local_hashes: range(100, 120, 7),
        }),
        turn(3, {
          prefix_of: { request_id: "r2", blocks: 110 },
          sequence_hashes: range(500, 505),
          local_hashes: range(500, 505, 7),
        }),
      ]),
      NDJSON,
    );
    expect(reply).toMatchObject({ accepted: 3, rejected: 0 });
    expect(stored(db, "ev-2")).toMatchObject({ base: "ev-1", seqShared: 100, localShared: 100 });
    expect(stored(db, "ev-2").seq!.byteLength).toBe(20 * 8);
    expect(chainStringsOf(db, "ev-3")).toEqual({
      seq: [...range(0, 110), ...range(500, 505)],
      local: [...range(0, 110, 7), ...range(500, 505, 7)],
    });
  });

  it("refuses each bad prefix alone, with a clear error, and stores the rest of the batch", () => {
    ingestBody(db, ndjson([turn(1, { sequence_hashes: range(0, 10), local_hashes: range(0, 10) })]), NDJSON);
    ingestBody(
      db,
      ndjson([turn(50, { session_id: "s2", request_id: "other-session", sequence_hashes: range(0, 10) })]),
      NDJSON,
    );
    const reply = ingestBody(
      db,
      ndjson([
        turn(2, { prefix_of: { request_id: "nope", blocks: 1 }, sequence_hashes: ["1"] }),
        turn(3, { prefix_of: { request_id: "r1", blocks: 11 }, sequence_hashes: ["1"] }),
        turn(4, { prefix_of: { request_id: "r4", blocks: 1 }, sequence_hashes: ["1"] }),
        turn(5, { prefix_of: { request_id: "r6", blocks: 1 }, sequence_hashes: ["1"] }),
        turn(6, { sequence_hashes: range(0, 3) }),
        turn(7, { prefix_of: { request_id: "other-session", blocks: 1 }, sequence_hashes: ["1"] }),
        turn(8, { source: "someone-else", prefix_of: { request_id: "r1", blocks: 1 }, sequence_hashes: ["1"] }),
        turn(9, { prefix_of: { request_id: "r1", blocks: 10 }, sequence_hashes: ["1"], local_hashes: ["2"] }),
      ]),
      NDJSON,
    );
    expect(reply.items.map((i) => [i.id, i.status, i.code ?? null])).toEqual([
      ["ev-2", "rejected", "unknown_prefix"],
      ["ev-3", "rejected", "unknown_prefix"],
      ["ev-4", "rejected", "invalid_prefix"],
      ["ev-5", "rejected", "invalid_prefix"],
      ["ev-6", "accepted", null],
      ["ev-7", "rejected", "invalid_prefix"],
      ["ev-8", "rejected", "invalid_prefix"],
      ["ev-9", "accepted", null],
    ]);
    expect(reply.items.map((i) => i.error ?? "")).toEqual([
      expect.stringMatching(/^line 1: prefix_of.request_id "nope": no such request is held/),
      expect.stringMatching(/11 exceeds the 10 sequence hashes/),
      expect.stringMatching(/names the request itself/),
      expect.stringMatching(/later item of this batch/),
      "",
      expect.stringMatching(/another session/),
      expect.stringMatching(/another sender/),
      "",
    ]);
    expect(chainStringsOf(db, "ev-9")).toEqual({ seq: [...range(0, 10), "1"], local: [...range(0, 10), "2"] });
  });

  it("finds the named request in its own session when another session reuses the request id", () => {
    ingestBody(db, ndjson([turn(1, { sequence_hashes: range(0, 5) })]), NDJSON);
    ingestBody(db, ndjson([turn(1, { id: "other-1", session_id: "s2", sequence_hashes: range(100, 103) })]), NDJSON);
    expect(
      ingestBody(db, ndjson([turn(2, { prefix_of: { request_id: "r1", blocks: 5 }, sequence_hashes: ["9"] })]), NDJSON),
    ).toMatchObject({ accepted: 1 });
    expect(chainStringsOf(db, "ev-2").seq).toEqual([...range(0, 5), "9"]);
  });

  it("answers a re-sent compact request as a duplicate, not as an unknown prefix", () => {
    const first = turn(1, { sequence_hashes: range(0, 4) });
    const second = turn(2, { prefix_of: { request_id: "r1", blocks: 4 }, sequence_hashes: ["9"] });
    ingestBody(db, ndjson([first, second]), NDJSON);
    expect(ingestBody(db, ndjson([second]), NDJSON)).toMatchObject({ duplicate: 1, rejected: 0 });
  });
});

describe("full chains from third-party senders", () => {
  it("are matched against the trajectory's previous turn and stored as its extension", () => {
    ingestBody(
      db,
      ndjson([turn(1, { source: undefined, sequence_hashes: range(0, 2_000), local_hashes: range(0, 2_000, 3) })]),
      NDJSON,
    );
    ingestBody(
      db,
      ndjson([turn(2, { source: undefined, sequence_hashes: range(0, 2_040), local_hashes: range(0, 2_040, 3) })]),
      NDJSON,
    );
    const s = stored(db, "ev-2");
    expect(s).toMatchObject({ base: "ev-1", seqShared: 2_000, localShared: 2_000 });
    expect([s.seq!.byteLength, s.local!.byteLength]).toEqual([40 * 8, 40 * 8]);
    expect(chainStringsOf(db, "ev-2")).toEqual({ seq: range(0, 2_040), local: range(0, 2_040, 3) });
  });

  it("share only up to the first differing block (a diverged header shares no sequence hashes)", () => {
    ingestBody(db, ndjson([turn(1, { sequence_hashes: range(0, 50), local_hashes: range(0, 50) })]), NDJSON);
    ingestBody(
      db,
      ndjson([
        turn(2, { sequence_hashes: [...range(0, 20), ...range(900, 940)], local_hashes: ["77", ...range(1, 60)] }),
      ]),
      NDJSON,
    );
    expect(stored(db, "ev-2")).toMatchObject({ base: "ev-1", seqShared: 20, localShared: 0 });
    expect(chainStringsOf(db, "ev-2")).toEqual({
      seq: [...range(0, 20), ...range(900, 940)],
      local: ["77", ...range(1, 60)],
    });
  });

  it("extend the session's previous turn when the trajectory has none (a subagent's first turn)", () => {
    ingestBody(db, ndjson([turn(1, { sequence_hashes: range(0, 30) })]), NDJSON);
    ingestBody(db, ndjson([turn(2, { trajectory_id: "sub", sequence_hashes: [...range(0, 10), "5"] })]), NDJSON);
    expect(stored(db, "ev-2")).toMatchObject({ base: "ev-1", seqShared: 10 });
    expect(chainStringsOf(db, "ev-2").seq).toEqual([...range(0, 10), "5"]);
  });
});

describe("reading", () => {
  it("reads rows stored before compact chains (decimal text) and rows extending them", () => {
    db.$client
      .prepare(
        `INSERT INTO requests (id, ts, request_id, session_id, trajectory_id, api, model, arrived_at, input_tokens, cached_tokens, output_tokens, status, sequence_hashes, local_hashes, source)
         VALUES ('old', ?, 'r0', 's1', 'main', 'messages', 'm', ?, 10, 0, 1, 'ok', '1,18446744073709551615,3', '4,5,6', 'sim')`,
      )
      .run(T0, T0);
    expect(
      ingestBody(
        db,
        ndjson([turn(1, { prefix_of: { request_id: "r0", blocks: 2 }, sequence_hashes: ["9"], local_hashes: ["8"] })]),
        NDJSON,
      ),
    ).toMatchObject({ accepted: 1 });
    expect(chainStringsOf(db, "old")).toEqual({ seq: ["1", "18446744073709551615", "3"], local: ["4", "5", "6"] });
    expect(chainStringsOf(db, "ev-1")).toEqual({ seq: ["1", "18446744073709551615", "9"], local: ["4", "5", "8"] });
  });

  it("builds a 500-turn session's chains in one pass, every turn exact", () => {
    const events: Raw[] = [turn(0, { sequence_hashes: range(0, 100), local_hashes: range(0, 100, 1) })];
    for (let n = 1; n < 500; n++)
      events.push(
        turn(n, {
          prefix_of: { request_id: `r${n - 1}`, blocks: 100 + (n - 1) * 4 },
          sequence_hashes: range(100 + (n - 1) * 4, 100 + n * 4),
          local_hashes: range(100 + (n - 1) * 4, 100 + n * 4, 1),
        }),
      );
    expect(ingestBody(db, ndjson(events), NDJSON)).toMatchObject({ accepted: 500 });
    const chains = sessionChains(db, "s1");
    expect(chains.size).toBe(500);
    for (const n of [0, 1, 250, 499])
      expect(chains.get(`r${n}`), `r${n}`).toEqual({
        sequence_hashes: range(0, 100 + n * 4),
        local_hashes: range(0, 100 + n * 4, 1),
      });
  });

  it("keeps absent lists absent and empty lists empty", () => {
    ingestBody(db, ndjson([turn(1), turn(2, { sequence_hashes: [], local_hashes: [] })]), NDJSON);
    expect(sessionChains(db, "s1")).toEqual(
      new Map([
        ["r1", { sequence_hashes: null, local_hashes: null }],
        ["r2", { sequence_hashes: [], local_hashes: [] }],
      ]),
    );
  });
});

describe("retention of compact chains", () => {
  it("deleting the turns a later turn extends stores that turn whole first: every kept chain still reads back exactly", () => {
    ingestBody(
      db,
      ndjson([
        turn(1, { sequence_hashes: range(0, 50), local_hashes: range(0, 50, 7) }),
        turn(2, {
          prefix_of: { request_id: "r1", blocks: 50 },
          sequence_hashes: range(50, 60),
          local_hashes: range(50, 60, 7),
        }),
        turn(3, {
          prefix_of: { request_id: "r2", blocks: 60 },
          sequence_hashes: range(60, 65),
          local_hashes: range(60, 65, 7),
        }),
      ]),
      NDJSON,
    );
    forgetChains(db);
    expect(deleteBatchBefore(db, "requests", "arrived_at", T0 + 1_500, 500)).toBe(1);
    forgetChains(db);
    expect(stored(db, "ev-2")).toMatchObject({ base: null, seqShared: 0, localShared: 0 });
    expect(stored(db, "ev-3")).toMatchObject({ base: "ev-2", seqShared: 60 });
    expect(chainStringsOf(db, "ev-2")).toEqual({ seq: range(0, 60), local: range(0, 60, 7) });
    expect(chainStringsOf(db, "ev-3")).toEqual({ seq: range(0, 65), local: range(0, 65, 7) });
  });
});
