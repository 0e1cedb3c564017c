import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeHashes } from "../codecs/chains";
import { openDb, type Db } from "./client";
import { testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import { insertEvents } from "./ingest";
import { KV_READ_CACHE_BYTES } from "../../lib/memory-bounds";
import { idKey, KV_INSERT, kvStoredRow } from "../ingest/kv-rows";
import {
  forgetKvLocations,
  KV_LOCATIONS_BYTES,
  kvBlockList,
  kvListColumns,
  kvReadCacheSize,
  kvRowStored,
  limitRecentBytes,
  REF_WINDOW_MS,
  shareKvLocations,
} from "./kv-lists";

const chain = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 7_919_000_000_017n + 2n ** 63n - 5n));
/** Event ids by their stored key (kv_events keeps a hash of the id, not its text). */
const names = new Map<number, string>();
const named = (id: string) => (names.set(idKey(id), id), id);
const stored = (id: string, hashes: string[], o: Raw = {}) =>
  parsed(minimal["kv.stored"]({ id: named(id), block_hashes: hashes, ...o }));
const removed = (id: string, hashes: string[], o: Raw = {}) =>
  parsed(minimal["kv.removed"]({ id: named(id), block_hashes: hashes, ...o }));

let db: Db;
beforeEach(() => {
  db = testDb();
});

type KvRow = { id: string; block_count: number; hashes: Buffer | null; refs: Buffer | null };
const rows = () =>
  db.$client
    .prepare(
      "SELECT id_key AS k, block_count, block_hashes AS hashes, block_refs AS refs FROM kv_events ORDER BY rowid",
    )
    .all()
    .map((row) => {
      const { k, ...r } = row as { k: number } & Omit<KvRow, "id">;
      return { id: names.get(k)!, ...r };
    }) as KvRow[];
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
    expect(insertEvents(db, events)).toEqual(events.map(() => "accepted"));
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
    insertEvents(db, [stored("s1", a)]);
    insertEvents(db, [removed("r1", a)]);
    expect(literalCount("r1")).toBe(0);
    expect(lists().r1).toEqual(a);
  });

  it("stores literally again once the origin is older than the window, or after the locations were forgotten", () => {
    const a = chain(0, 64);
    insertEvents(db, [stored("s1", a), stored("s2", a, { ts: T0 + REF_WINDOW_MS + 1 })]);
    expect(literalCount("s2")).toBe(64);
    forgetKvLocations(db);
    insertEvents(db, [removed("r1", a, { ts: T0 + REF_WINDOW_MS + 2 })]);
    expect(literalCount("r1")).toBe(64);
    expect(lists()).toEqual({ s1: a, s2: a, r1: a });
  });

  it("never references a duplicate that was not stored, nor an origin deleted since", () => {
    const a = chain(0, 64);
    insertEvents(db, [stored("s1", a)]);
    expect(insertEvents(db, [stored("s1", chain(500, 64))])).toEqual(["duplicate"]);
    db.$client.prepare("DELETE FROM kv_events WHERE id_key = ?").run(idKey("s1"));
    insertEvents(db, [removed("r1", a)]);
    expect(literalCount("r1")).toBe(64);
    expect(lists()).toEqual({ r1: a });
  });

  it("keeps the origins it read back within their bytes bound, dropping the oldest, and still reads every list", () => {
    // 48 origins of 12,000 hashes (96 KiB each, 4.5 MiB in all) each referred to by a later removal.
    const origins = Array.from({ length: 48 }, (_, i) => chain(i * 12_000, 12_000));
    insertEvents(
      db,
      origins.map((a, i) => stored(`s${i}`, a)),
    );
    insertEvents(
      db,
      origins.map((a, i) => removed(`r${i}`, a.slice(0, 11_000))),
    );
    forgetKvLocations(db);
    const read = lists();
    origins.forEach((a, i) => expect(read[`r${i}`]).toEqual(a.slice(0, 11_000)));
    expect(literalCount("r47")).toBe(0);
    const size = kvReadCacheSize(db);
    expect(size.bytes).toBeLessThanOrEqual(KV_READ_CACHE_BYTES);
    expect(size.bytes).toBeGreaterThan(KV_READ_CACHE_BYTES - 96 * 1024);
    expect(size.entries).toBe(Math.floor(KV_READ_CACHE_BYTES / (96_000 * 1)));
  });

  it("keeps comparing runs against recent rows after the remembered ring went round several times", () => {
    // 1 MiB of rows remembered (a 2 MiB ring) for this connection, 7.5 MiB stored.
    limitRecentBytes(1024 * 1024);
    db = testDb();
    limitRecentBytes(16 * 1024 * 1024);
    const insert = db.$client.prepare(KV_INSERT);
    /** 16,384 distinct hashes per row (8-byte words), row k's distinct from every other row's. */
    const list = (k: number) => {
      const b = Buffer.alloc(16_384 * 8);
      for (let i = 0; i < 16_384; i++) {
        b.writeUInt32BE(k + 1, i * 8);
        b.writeUInt32BE(Math.imul(i, 2_654_435_761) >>> 0, i * 8 + 4);
      }
      return b;
    };
    const put = (k: number, hashes: Buffer) => {
      const [literal, refs] = kvListColumns(db, hashes, T0 + k);
      const e = parsed(minimal["kv.stored"]({ id: named(`w${k}`), ts: T0 + k, block_hashes: ["1"] }));
      const row = kvStoredRow(e as Parameters<typeof kvStoredRow>[0], literal, refs);
      row[4] = hashes.byteLength / 8;
      kvRowStored(db, insert.run(row).lastInsertRowid);
      return { literal, refs };
    };
    const ROWS = 60;
    db.$client.transaction(() => {
      for (let k = 0; k < ROWS; k++) put(k, list(k));
    })();
    // Rows from the ring's second round: their last hashes, reversed (an eviction) and then a run in list order.
    const last = list(ROWS - 1);
    const before = list(ROWS - 2);
    const tail = (b: Buffer, n: number) => b.subarray(b.byteLength - n * 8);
    const reversed = Buffer.concat(
      Array.from({ length: 600 }, (_, i) => tail(last, 600).subarray((599 - i) * 8, (600 - i) * 8)),
    );
    const again = Buffer.concat([reversed, tail(before, 300)]);
    const { literal, refs } = put(ROWS, again);
    expect(literal.byteLength).toBe(0);
    expect(refs).not.toBeNull();
    const stored = db.$client
      .prepare("SELECT block_hashes AS h, block_refs AS r FROM kv_events ORDER BY rowid DESC LIMIT 1")
      .get() as { h: Buffer; r: Buffer };
    expect(kvBlockList(db, stored.h, stored.r)).toEqual(again);
  });

  it("reads a list whose origin aged out as the hashes it still holds (retention keeps the rows, not the origin)", () => {
    const a = chain(0, 64);
    insertEvents(db, [stored("s1", a), removed("r1", [...chain(900, 2), ...a])]);
    db.$client.prepare("DELETE FROM kv_events WHERE id_key = ?").run(idKey("s1"));
    expect(lists()).toEqual({ r1: chain(900, 2) });
  });
});

describe("a location map shared by ingest connections", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  /** Two connections to one database file, sharing a map when `share`. */
  function pair(share: boolean): [Db, Db] {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-kv-lists-"));
    dirs.push(dir);
    const a = openDb(path.join(dir, "db.sqlite"));
    const b = openDb(path.join(dir, "db.sqlite"));
    if (share) {
      const map = new SharedArrayBuffer(KV_LOCATIONS_BYTES);
      shareKvLocations(a, map);
      shareKvLocations(b, map);
    }
    return [a, b];
  }
  const literalOf = (c: Db, id: string) =>
    ((c.$client.prepare("SELECT block_hashes FROM kv_events WHERE id_key = ?").pluck().get(idKey(id)) as Buffer | null)
      ?.byteLength ?? 0) / 8;
  const listOf = (c: Db, id: string) => {
    const r = c.$client
      .prepare("SELECT block_hashes AS h, block_refs AS r FROM kv_events WHERE id_key = ?")
      .get(idKey(id)) as {
      h: Buffer;
      r: Buffer | null;
    };
    return decodeHashes(kvBlockList(c, r.h, r.r));
  };

  it.each([
    { share: true, literal: 0 },
    { share: false, literal: 64 },
  ])("share $share: a list refers to another connection's rows ($literal literal)", ({ share, literal }) => {
    const [a, b] = pair(share);
    const list = chain(0, 64);
    insertEvents(a, [stored("s1", list)]);
    insertEvents(b, [removed("r1", list)]);
    expect(literalOf(b, "r1")).toBe(literal);
    expect(listOf(a, "r1")).toEqual(list);
    a.$client.close();
    b.$client.close();
  });

  it("forgets a rolled-back batch's rows for every connection (their rowids are used again)", () => {
    const [a, b] = pair(true);
    const gone = chain(0, 64);
    expect(() =>
      insertEvents(a, [stored("s1", gone)], {
        alsoInTransaction: () => {
          throw new Error("refused");
        },
      }),
    ).toThrow("refused");
    const other = chain(5_000, 64);
    insertEvents(b, [stored("s2", other), removed("r1", gone)]);
    expect(literalOf(b, "r1")).toBe(64);
    expect([listOf(a, "s2"), listOf(a, "r1")]).toEqual([other, gone]);
    a.$client.close();
    b.$client.close();
  });
});
