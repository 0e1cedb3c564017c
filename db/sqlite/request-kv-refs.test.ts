import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migratedDatabases } from "../../test/migrated-at";
import { encodeHashes } from "../codecs/chains";
import { openDb } from "./client";
import { testDb } from "../../test/db";
import { minimal, parsed, T0, turn, type Raw } from "../../test/events";
import type { Db } from "./client";
import type { ResolvePrefix } from "../rows/ingest";
import { chainStringsOf, forgetChains, sessionChains } from "./chains";
import { insertEvents } from "./ingest";
import { REF_WINDOW_MS } from "./kv-lists";
import { deleteBatchBefore, deleteRawBefore } from "./retention";

// A request's sequence tail stored as references to the kv.stored lists that held its new blocks first
// (requests.seq_refs), read back exactly, and stored literally again before retention deletes those KV events.

const chain = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 7_919_000_000_017n + 2n ** 63n - 5n));
const stored = (id: string, hashes: string[], o: Raw = {}) =>
  parsed(minimal["kv.stored"]({ id, block_hashes: hashes, ts: T0, ...o }));
const request = (n: number, o: Raw) => parsed(turn(n, o));

/** The named request's first `blocks` hashes (and none of its local chain): what server/ingest/prefix.ts grants. */
const resolvePrefix: ResolvePrefix = (e, named) =>
  named
    ? { ok: true, base: named.rowId, shared: e.prefix_of!.blocks, localShared: 0 }
    : { ok: false, code: "unknown_prefix", error: "not held" };

let db: Db;
beforeEach(() => {
  db = testDb();
});

type Stored = { literal: number; refs: boolean };
const storedForm = (id: string): Stored => {
  const r = db.$client.prepare("SELECT sequence_hashes AS s, seq_refs AS r FROM requests WHERE id = ?").get(id) as {
    s: Buffer | null;
    r: Buffer | null;
  };
  return { literal: (r.s?.byteLength ?? 0) / 8, refs: r.r !== null };
};

const a = chain(0, 300);
const b = chain(10_000, 40);
const edges = ["0", "9223372036854775807", "9223372036854775808", "18446744073709551615"];

describe("a request's sequence tail refers to the KV events that stored it", () => {
  it.each([
    { name: "whole tail in one list", kv: [a], seq: a, literal: 0, refs: true },
    { name: "tail split over two lists", kv: [a.slice(0, 150), a.slice(150)], seq: a, literal: 0, refs: true },
    {
      name: "new hashes around a stored run",
      kv: [a],
      seq: [...b.slice(0, 3), ...a, ...edges],
      literal: 7,
      refs: true,
    },
    { name: "hashes at the u64 edges", kv: [[...edges, ...b]], seq: [...edges, ...b], literal: 0, refs: true },
    { name: "run shorter than a reference pays", kv: [a.slice(0, 3)], seq: a.slice(0, 3), literal: 3, refs: false },
    { name: "no KV event holds it", kv: [], seq: a, literal: 300, refs: false },
  ])("$name: $literal literal, reads back exactly", ({ kv, seq, literal, refs }) => {
    const events = [...kv.map((l, i) => stored(`kv-${i}`, l)), request(1, { sequence_hashes: seq, local_hashes: b })];
    expect(insertEvents(db, events)).toEqual(events.map(() => "accepted"));
    expect(storedForm("ev-1")).toEqual({ literal, refs });
    forgetChains(db); // read from the rows, not from what ingest remembered
    expect(chainStringsOf(db, "ev-1")).toEqual({ seq, local: b });
  });

  it("a later turn extends a turn stored as references (prefix_of and full lists), in later batches", () => {
    const next = chain(20_000, 64);
    insertEvents(db, [stored("kv-1", a), request(1, { sequence_hashes: a })]);
    insertEvents(
      db,
      [
        stored("kv-2", next, { ts: T0 + 5_000 }),
        request(2, { prefix_of: { request_id: "r1", blocks: 300 }, sequence_hashes: next }),
        request(3, { sequence_hashes: [...a, ...next, ...b] }),
      ],
      { resolvePrefix },
    );
    expect([storedForm("ev-1").refs, storedForm("ev-2")]).toEqual([true, { literal: 0, refs: true }]);
    forgetChains(db);
    const all = sessionChains(db, "s1");
    expect(all.get("r2")?.sequence_hashes).toEqual([...a, ...next]);
    expect(all.get("r3")?.sequence_hashes).toEqual([...a, ...next, ...b]);
    expect(chainStringsOf(db, "ev-3").seq).toEqual([...a, ...next, ...b]);
  });

  it("retention stores the tail literally before deleting the KV events it refers to", () => {
    const late = T0 + 2 * REF_WINDOW_MS;
    insertEvents(db, [
      stored("kv-1", a),
      request(1, { sequence_hashes: a }),
      stored("kv-2", b, { ts: late }),
      request(2, { sequence_hashes: b, ts: late, arrived_at: late, session_id: "s2" }),
    ]);
    expect(deleteRawBefore(db, T0 + 1).kv_events).toBe(1);
    expect(storedForm("ev-1")).toEqual({ literal: 300, refs: false });
    expect(storedForm("ev-2").refs).toBe(true);
    forgetChains(db);
    expect(chainStringsOf(db, "ev-1").seq).toEqual(a);
    expect(chainStringsOf(db, "ev-2").seq).toEqual(b);
  });

  it("retention in small batches deletes no KV event a request still refers to", () => {
    const lists = [0, 1, 2].map((k) => chain(100_000 * (k + 1), 8));
    insertEvents(
      db,
      lists.flatMap((l, k) => [
        stored(`kv-${k}`, l, { ts: T0 + k }),
        request(k + 1, { sequence_hashes: l, session_id: `s${k}` }),
      ]),
    );
    const cutoff = T0 + 60_000;
    const kvLeft = () => db.$client.prepare("SELECT count(*) FROM kv_events").pluck().get();
    const refsLeft = () => db.$client.prepare("SELECT count(*) FROM requests WHERE seq_refs IS NOT NULL").pluck().get();
    const steps: [number, unknown, unknown][] = [];
    for (let i = 0; i < 4; i++) {
      const n = deleteBatchBefore(db, "kv_events", "ts", cutoff, 1);
      steps.push([n, kvLeft(), refsLeft()]);
      forgetChains(db);
      lists.forEach((l, k) => expect(chainStringsOf(db, `ev-${k + 1}`).seq).toEqual(l));
    }
    expect(steps).toEqual([
      [0, 3, 2],
      [0, 3, 1],
      [1, 2, 0],
      [1, 1, 0],
    ]);
  });

  it("refuses to read a tail whose KV events were deleted behind retention's back (never a wrong chain)", () => {
    insertEvents(db, [stored("kv-1", a), request(1, { sequence_hashes: a })]);
    db.$client.prepare("DELETE FROM kv_events").run();
    forgetChains(db);
    expect(() => chainStringsOf(db, "ev-1")).toThrow(/KV events no longer stored/);
  });
});

describe("migration 0022 (requests.seq_refs)", () => {
  const { databaseAt, cleanup } = migratedDatabases();
  afterEach(cleanup);

  it("keeps every request row and its chains, and ingest then stores tails as references", () => {
    const file = databaseAt("0021_leases");
    const old = new Database(file);
    old
      .prepare(
        `INSERT INTO requests (id, ts, request_id, session_id, api, model, arrived_at, input_tokens, cached_tokens,
           output_tokens, status, sequence_hashes, local_hashes, seq_count, local_count)
         VALUES ('old-1', ?, 'r-old', 's0', 'chat_completions', 'llama', ?, 10, 0, 1, 'ok', ?, ?, 300, 40)`,
      )
      .run(T0, T0, encodeHashes(a), encodeHashes(b));
    old
      .prepare(
        "INSERT INTO requests (id, ts, request_id, api, model, arrived_at, input_tokens, cached_tokens, output_tokens, status, sequence_hashes) VALUES ('old-2', ?, 'r-text', 'chat_completions', 'llama', ?, 1, 0, 1, 'ok', '7,18446744073709551615')",
      )
      .run(T0, T0);
    old.close();

    const m = openDb(file);
    expect(chainStringsOf(m, "old-1")).toEqual({ seq: a, local: b });
    expect(chainStringsOf(m, "old-2").seq).toEqual(["7", "18446744073709551615"]);
    expect(m.$client.prepare("SELECT count(*) FROM requests WHERE seq_refs IS NULL").pluck().get()).toBe(2);
    const next = chain(50_000, 20);
    insertEvents(m, [
      stored("kv-9", next, { ts: T0 + 5_000 }),
      request(9, { sequence_hashes: next, session_id: "s9" }),
    ]);
    forgetChains(m);
    expect(chainStringsOf(m, "ev-9").seq).toEqual(next);
    expect(m.$client.prepare("SELECT seq_refs IS NOT NULL FROM requests WHERE id = 'ev-9'").pluck().get()).toBe(1);
    m.$client.close();
  });
});
