import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { migratedDatabases } from "../../test/migrated-at";
import { openDb } from "./client";
import { halvesOf } from "./attribution-block-table";
import { attrBlocks, attrLocal } from "./attribution-packed";
import { residencyAt, encodeIntervals } from "./attribution-index";
import { localSeenBefore, seenFirstAt } from "./attribution-seen";

const T = 1_764_417_600_000;
const { databaseAt, cleanup } = migratedDatabases();
afterEach(cleanup);

describe("migration 0013 (shared interval lists, first-seen marks on the block row)", () => {
  it("keeps every block's intervals and first-seen time, and the KV events", () => {
    const file = databaseAt("0012_compact_chains");
    const c = new Database(file);
    c.prepare("INSERT INTO attr_names (id, name) VALUES (1, 'w1'), (2, 'capacity')").run();
    const put = c.prepare("INSERT INTO attr_blocks (hash, intervals) VALUES (?, ?)");
    put.run(-5n, encodeIntervals([{ w: 1, storedAt: T, removedAt: T + 10, why: 2 }]));
    put.run(7n, encodeIntervals([{ w: 1, storedAt: T + 20, removedAt: null, why: 0 }]));
    c.prepare("INSERT INTO attr_seen (hash, first_at) VALUES (-5, ?), (7, ?), (9, ?)").run(T - 1, T + 5, T + 50);
    c.prepare("INSERT INTO attr_state (key, value) VALUES ('kv', 1), ('requests', 0)").run();
    c.prepare(
      "INSERT INTO kv_events (id, ts, op, worker_id, block_count, block_hashes) VALUES ('k1', ?, 'stored', 'w1', 1, ?)",
    ).run(T, Buffer.alloc(8));
    c.close();

    const db = openDb(file);
    expect(residencyAt(db, ...halvesOf(-5n), T + 15, "w1")).toMatchObject({
      residentOn: [],
      lastRemoval: { reason: "capacity", at: T + 10, workerId: "w1" },
    });
    expect(residencyAt(db, ...halvesOf(7n), T + 25, "w1")).toMatchObject({ residentOn: ["w1"], lastRemoval: null });
    expect([
      seenFirstAt(db, ...halvesOf(-5n)),
      seenFirstAt(db, ...halvesOf(7n)),
      seenFirstAt(db, ...halvesOf(9n)),
      seenFirstAt(db, ...halvesOf(11n)),
    ]).toEqual([T - 1, T + 5, T + 50, undefined]);
    expect(db.$client.prepare("SELECT sum(refs), count(*) FROM attr_lists").raw().get()).toEqual([2, 2]);
    expect(db.$client.prepare("SELECT block_count, block_refs FROM kv_events").raw().get()).toEqual([1, null]);
    db.$client.close();
  });
});

describe("migration 0019 (first-seen times after an epoch)", () => {
  it("keeps every first-seen time of attr_blocks and attr_local, on disk relative to the earliest", () => {
    const file = databaseAt("0018_compact_candidates");
    const c = new Database(file);
    c.prepare("INSERT INTO attr_blocks (hash, list, first_at) VALUES (-5, 0, ?), (7, 3, NULL), (9, 0, ?)").run(
      T + 5,
      T + 50,
    );
    c.prepare("INSERT INTO attr_local (hash, first_at) VALUES (-5, ?), (11, ?)").run(T - 1, T + 7);
    c.prepare("INSERT INTO attr_state (key, value) VALUES ('kv', 1), ('requests', 0)").run();
    c.close();

    const db = openDb(file);
    expect(db.$client.prepare("SELECT value FROM attr_state WHERE key = 'epoch'").pluck().get()).toBe(T - 1);
    expect(attrBlocks(db.$client).rows()).toEqual([
      { hash: -5n, values: [0, 6] },
      { hash: 7n, values: [3, null] },
      { hash: 9n, values: [0, 51] },
    ]);
    expect(attrLocal(db.$client).rows()).toEqual([
      { hash: -5n, values: [0] },
      { hash: 11n, values: [8] },
    ]);
    expect([7n, 9n, -5n, 8n].map((h) => seenFirstAt(db, ...halvesOf(h)))).toEqual([
      undefined,
      T + 50,
      T + 5,
      undefined,
    ]);
    const [hi, lo] = [-5n, 11n]
      .map((h) => halvesOf(h))
      .reduce<[number[], number[]]>(
        ([a, b], [x, y]) => [
          [...a, x],
          [...b, y],
        ],
        [[], []],
      );
    const before = (t: number) => [...localSeenBefore(db, Int32Array.from(hi), Int32Array.from(lo), t)].sort();
    expect([before(T - 1), before(T), before(T + 8)]).toEqual([[], [0], [0, 1]]);
    db.$client.close();
  });

  it("an empty index gets no epoch (the job picks one with its first marks)", () => {
    const db = openDb(databaseAt("0018_compact_candidates"));
    expect(db.$client.prepare("SELECT count(*) FROM attr_state WHERE key = 'epoch'").pluck().get()).toBe(0);
    db.$client.close();
  });
});

describe("migration 0032 (the index's hashes packed by bucket)", () => {
  it("keeps every hash, list and first-seen time, the largest and smallest included, and reads them back", () => {
    const file = databaseAt("0031_alerts");
    const c = new Database(file);
    const blocks: [bigint, number, number | null][] = [
      [-(2n ** 63n), 1, -86_400_000], // the smallest i64, a mark a day before the epoch
      [-5n, 0, 6],
      [-1n, 2, null], // u64 max as signed
      [0n, 3, 0],
      [(1n << 48n) - 1n, 4, 2 ** 31], // the last key of bucket 0; a mark ~25 days after the epoch
      [1n << 48n, 5, 1], // the first of bucket 1
      [2n ** 63n - 1n, 2 ** 32 - 1, 7],
    ];
    const put = c.prepare("INSERT INTO attr_blocks (hash, list, first_at) VALUES (?, ?, ?)");
    for (const [h, list, at] of blocks) put.run(h, list, at);
    const local: [bigint, number][] = [
      [-(2n ** 63n), -3],
      [-1n, 0],
      [12_345n, 2 ** 35],
    ];
    const putLocal = c.prepare("INSERT INTO attr_local (hash, first_at) VALUES (?, ?)");
    for (const [h, at] of local) putLocal.run(h, at);
    c.prepare("INSERT INTO attr_state (key, value) VALUES ('epoch', ?), ('kv', 1), ('requests', 0)").run(T);
    c.close();

    const db = openDb(file);
    expect(attrBlocks(db.$client).rows()).toEqual(blocks.map(([hash, list, at]) => ({ hash, values: [list, at] })));
    expect(attrLocal(db.$client).rows()).toEqual(local.map(([hash, at]) => ({ hash, values: [at] })));
    // Rows 2^16 + a hash's top 16 bits: 0 (0 and 2^48 - 1), 1, 0x7fff, 0x8000 (the smallest), 0xffff (-5 and -1).
    expect(db.$client.prepare("SELECT bucket FROM attr_blocks ORDER BY bucket").pluck().all()).toEqual([
      65536,
      65537,
      65536 + 0x7fff,
      65536 + 0x8000,
      65536 + 0xffff,
    ]);
    expect(
      db.$client.prepare("SELECT key, value FROM attr_state WHERE key LIKE '%_keys' ORDER BY key").raw().all(),
    ).toEqual([
      ["attr_blocks_keys", 7],
      ["attr_local_keys", 3],
    ]);
    expect(seenFirstAt(db, ...halvesOf(-1n))).toBeUndefined();
    expect(seenFirstAt(db, ...halvesOf(-(2n ** 63n)))).toBe(T - 86_400_000);
    expect(residencyAt(db, ...halvesOf(-5n), T, "w1")).toMatchObject({ residentOn: [], lastRemoval: null });
    db.$client.close();
  });
});
