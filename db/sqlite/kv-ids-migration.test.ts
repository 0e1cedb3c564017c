import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { encodeHashes } from "../codecs/chains";
import { openDb } from "./client";
import { migratedDatabases } from "../../test/migrated-at";
import { minimal, parsed, T0 } from "../../test/events";
import { insertEvents } from "./ingest";
import { idKey } from "../ingest/kv-rows";
import { kvBlockList } from "./kv-lists";

const { databaseAt, cleanup } = migratedDatabases();
afterEach(cleanup);

describe("idKey (kv_events' event id hash)", () => {
  it.each([
    ["an empty id", ""],
    ["a simulator id", "009at77-ks-1001"],
    ["a long id with non-ASCII text", `ä-${"x".repeat(500)}-ü`],
  ])("is a 48-bit safe integer, the same every time, for %s", (_, id) => {
    const k = idKey(id);
    expect(Number.isSafeInteger(k)).toBe(true);
    expect(k).toBeGreaterThanOrEqual(0);
    expect(k).toBeLessThan(2 ** 48);
    expect(idKey(id)).toBe(k);
  });

  it("does not collide over 200,000 ids that differ in one character or by a sequence number", () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `009at77-ks-${i}`);
    for (let i = 0; i < 100_000; i++) ids.push(`run${i % 7}-kr-${i}`);
    expect(new Set(ids.map(idKey)).size).toBe(ids.length);
  });
});

describe("kv_events ids as a hash unique with ts", () => {
  it("answers a re-sent event as a duplicate, and stores an event with the same id at another time", () => {
    const db = openDb(":memory:");
    const e = minimal["kv.stored"]({ id: "kv-1", block_hashes: ["1", "2"] });
    expect(insertEvents(db, [parsed(e)])).toEqual(["accepted"]);
    expect(insertEvents(db, [parsed(e)])).toEqual(["duplicate"]);
    expect(insertEvents(db, [parsed({ ...e, ts: T0 + 1 })])).toEqual(["accepted"]);
    expect(db.$client.prepare("SELECT count(*) FROM kv_events WHERE id IS NULL").pluck().get()).toBe(2);
  });
});

describe("migration 0020 (kv_events id_key, requests.local_refs)", () => {
  it("keeps every KV row with its rowid, id and list, drops the text-id index, and ingest goes on", () => {
    const file = databaseAt("0019_relative_first_seen");
    const old = new Database(file);
    const put = old.prepare(
      "INSERT INTO kv_events (rowid, id, ts, op, worker_id, block_count, block_hashes, reason) VALUES (?, ?, ?, ?, 'w1', ?, ?, ?)",
    );
    put.run(5, "old-s", T0, "stored", 3, encodeHashes(["1", "18446744073709551615", "3"]), null);
    put.run(9, "old-r", T0 + 10, "removed", 1, encodeHashes(["3"]), "evicted");
    put.run(12, "old-t", T0 + 20, "stored", 1, "7", null);
    old.close();

    const db = openDb(file);
    const rows = db.$client
      .prepare("SELECT rowid, id, id_key, ts, op, block_hashes AS h, block_refs AS r FROM kv_events ORDER BY rowid")
      .all() as { rowid: number; id: string; id_key: number | null; h: Buffer | string; r: Buffer | null }[];
    expect(rows.map((r) => [r.rowid, r.id, r.id_key])).toEqual([
      [5, "old-s", null],
      [9, "old-r", null],
      [12, "old-t", null],
    ]);
    expect(rows.map((r) => kvBlockList(db, r.h, r.r))).toEqual([
      encodeHashes(["1", "18446744073709551615", "3"]),
      encodeHashes(["3"]),
      encodeHashes(["7"]),
    ]);
    const indexes = db.$client
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kv_events' ORDER BY name")
      .pluck()
      .all();
    expect(indexes).toEqual(["kv_events_parent", "kv_events_ts_key"]);
    expect(
      insertEvents(db, [parsed(minimal["kv.stored"]({ id: "new-s", ts: T0 + 30, block_hashes: ["1", "3"] }))]),
    ).toEqual(["accepted"]);
    const last = db.$client.prepare("SELECT rowid, id, id_key FROM kv_events ORDER BY rowid DESC LIMIT 1").get();
    expect(last).toEqual({ rowid: 13, id: null, id_key: idKey("new-s") });
    expect(db.$client.prepare("SELECT count(*) FROM requests WHERE local_refs IS NOT NULL").pluck().get()).toBe(0);
  });
});
