import { beforeEach, describe, expect, it } from "vitest";
import { decodeHashes } from "../chain-codec";
import type { Db } from "../client";
import { testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import { storeEvents } from "./ingest";
import { forgetKvLocations, kvBlockList, REF_WINDOW_MS } from "./kv-lists";

const chain = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 7_919_000_000_017n + 2n ** 63n - 5n));
const stored = (id: string, hashes: string[], o: Raw = {}) =>
  parsed(minimal["kv.stored"]({ id, block_hashes: hashes, ...o }));
const removed = (id: string, hashes: string[], o: Raw = {}) =>
  parsed(minimal["kv.removed"]({ id, block_hashes: hashes, ...o }));

let db: Db;
beforeEach(() => {
  db = testDb();
});

type KvRow = { id: string; block_count: number; hashes: Buffer | null; refs: Buffer | null };
const rows = () =>
  db.$client
    .prepare("SELECT id, block_count, block_hashes AS hashes, block_refs AS refs FROM kv_events ORDER BY rowid")
    .all() as KvRow[];
const lists = () => Object.fromEntries(rows().map((r) => [r.id, decodeHashes(kvBlockList(db, r.hashes, r.refs))]));
const literalCount = (id: string) => (rows().find((r) => r.id === id)!.hashes?.byteLength ?? 0) / 8;

describe("KV block lists stored compactly on ingest", () => {
  it("stores repeated runs as references and reads every list back exactly", () => {
    const a = chain(0, 300);
    const b = chain(1_000, 50);
    const events = [
      stored("s1", a),
      stored("s2", [...a.slice(0, 120), ...b], { worker_id: "w2" }),
      removed("r1", a.slice(100, 300).reverse()),
      removed("r2", [...b.slice(10, 20), "42", ...a.slice(0, 5)], { worker_id: "w2" }),
      stored("s3", ["0", "18446744073709551615", ...a.slice(7, 9)]),
    ];
    expect(storeEvents(db, events)).toEqual(events.map(() => "accepted"));
    expect(lists()).toEqual({
      s1: a,
      s2: [...a.slice(0, 120), ...b],
      r1: a.slice(100, 300).reverse(),
      r2: [...b.slice(10, 20), "42", ...a.slice(0, 5)],
      s3: ["0", "18446744073709551615", ...a.slice(7, 9)],
    });
    expect(rows().map((r) => r.block_count)).toEqual([300, 170, 200, 16, 4]);
    expect([
      literalCount("s1"),
      literalCount("s2"),
      literalCount("r1"),
      literalCount("r2"),
      literalCount("s3"),
    ]).toEqual([300, 50, 0, 1, 4]);
  });

  it("references lists stored by earlier batches on the same connection", () => {
    const a = chain(0, 64);
    storeEvents(db, [stored("s1", a)]);
    storeEvents(db, [removed("r1", a)]);
    expect(literalCount("r1")).toBe(0);
    expect(lists().r1).toEqual(a);
  });

  it("stores literally again once the origin is older than the window, or after the locations were forgotten", () => {
    const a = chain(0, 64);
    storeEvents(db, [stored("s1", a), stored("s2", a, { ts: T0 + REF_WINDOW_MS + 1 })]);
    expect(literalCount("s2")).toBe(64);
    forgetKvLocations(db);
    storeEvents(db, [removed("r1", a, { ts: T0 + REF_WINDOW_MS + 2 })]);
    expect(literalCount("r1")).toBe(64);
    expect(lists()).toEqual({ s1: a, s2: a, r1: a });
  });

  it("never references a duplicate that was not stored, nor an origin deleted since", () => {
    const a = chain(0, 64);
    storeEvents(db, [stored("s1", a)]);
    expect(storeEvents(db, [stored("s1", chain(500, 64))])).toEqual(["duplicate"]);
    db.$client.prepare("DELETE FROM kv_events WHERE id = 's1'").run();
    storeEvents(db, [removed("r1", a)]);
    expect(literalCount("r1")).toBe(64);
    expect(lists()).toEqual({ r1: a });
  });

  it("reads a list whose origin aged out as the hashes it still holds (retention keeps the rows, not the origin)", () => {
    const a = chain(0, 64);
    storeEvents(db, [stored("s1", a), removed("r1", [...chain(900, 2), ...a])]);
    db.$client.prepare("DELETE FROM kv_events WHERE id = 's1'").run();
    expect(lists()).toEqual({ r1: chain(900, 2) });
  });
});
