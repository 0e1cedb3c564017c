// Whole-path: PostgreSQL's store with the real prefix_of decision (server/ingest/prefix.ts), beside SQLite's on the same events.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { IngestRow } from "../../../db/rows/ingest";
import type { PgDb } from "../../../db/pg/client";
import { forgetRecentRequests, insertEventsPg } from "../../../db/pg/ingest";
import { listPartitions } from "../../../db/pg/partitions";
import { decodeHashes, HASH_BYTES } from "../../../db/codecs/chains";
import { storedChainColumns, wholeChainsPg, type StoredChains } from "../../../db/pg/chains";
import { insertEvents } from "../../../db/sqlite/ingest";
import { idKey } from "../../../db/ingest/kv-rows";
import { chainStringsOf } from "../../../db/sqlite/chains";
import { testDb } from "../../../test/db";
import { full, minimal, parsed, stats, T0, turn, type Raw } from "../../../test/events";
import { freshPg, PG_TEST_URL } from "../../../test/pg";
import { resolvePrefix } from "../prefix";
import type { EventKind } from "../events";

// PostgreSQL's ingest against SQLite's on the same events: the same rows out, the same statuses, nothing stored twice.

const DAY = 86_400_000;
const TABLE: Record<EventKind, string> = {
  "worker.up": "worker_events",
  "worker.down": "worker_events",
  "worker.stats": "worker_stats",
  "kv.stored": "kv_events",
  "kv.removed": "kv_events",
  "kv.cleared": "kv_events",
  "route.decision": "route_decisions",
  request: "requests",
  tool: "tools",
  reasoning: "reasoning_spans",
  "planner.decision": "planner_decisions",
  "policy.ack": "policy_acks",
};
const ALL_TABLES = [...new Set(Object.values(TABLE)), "workers"];
const KINDS = Object.keys(TABLE) as EventKind[];
const rows = (raws: Raw[]) => raws.map(parsed) as IngestRow[];
const hashes = (from: number, n: number, salt = 0) =>
  Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 1_000_003n + BigInt(salt)));

/** A row with booleans as 0/1 (SQLite's form) and Uint8Arrays as Buffers, for comparing engines. */
function normal(row: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!row) return row;
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      typeof v === "boolean" ? (v ? 1 : 0) : v instanceof Uint8Array ? Buffer.from(v) : v,
    ]),
  );
}

describe.skipIf(!PG_TEST_URL)("PostgreSQL ingest (insertEventsPg)", () => {
  let pg: PgDb;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
  });
  afterAll(() => drop?.());
  beforeEach(async () => {
    await pg.$client.unsafe(`TRUNCATE ${ALL_TABLES.join(", ")}`);
    forgetRecentRequests(pg);
  });

  /** The column a stored row is found by, and its value: KV events by their id's hash (as both engines key them). */
  const keyOf = (table: string, id: string): [string, string | number] =>
    table === "kv_events" ? ["id_key", idKey(id)] : ["id", id];
  const store = (raws: Raw[]) => insertEventsPg(pg, rows(raws), { resolvePrefix });
  const pgRow = async (table: string, id: string) => {
    const [column, value] = keyOf(table, id);
    return normal((await pg.$client.unsafe(`SELECT * FROM ${table} WHERE ${column} = $1`, [value]))[0]);
  };
  const count = async (table: string) =>
    Number((await pg.$client.unsafe(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);
  /** A stored request's chains whole (db/pg/chains.ts). */
  const wholeOf = async (id: string) => {
    const stored = await pg.$client.unsafe<StoredChains[]>(
      `SELECT ${storedChainColumns()} FROM requests WHERE id = $1`,
      [id],
    );
    return (await wholeChainsPg(pg.$client, stored)).get(id)!;
  };

  describe.each([
    ["required fields only", minimal],
    ["every optional field", full],
  ])("same event in, same row out as SQLite: %s", (_name, fixtures) => {
    it.each(KINDS)("%s", async (kind) => {
      const event = fixtures[kind]();
      const sqlite = testDb();
      expect(insertEvents(sqlite, rows([event]), { resolvePrefix })).toEqual(["accepted"]);
      expect(await store([event])).toEqual(["accepted"]);
      const [column, value] = keyOf(TABLE[kind], String(event.id));
      const expected = sqlite.$client.prepare(`SELECT * FROM ${TABLE[kind]} WHERE ${column} = ?`).get(value) as Record<
        string,
        unknown
      >;
      // SQLite keeps the text id of KV rows stored before id_key (null since); PostgreSQL has no such rows.
      if (TABLE[kind] === "kv_events") delete expected.id;
      // SQLite may store a request's sequence tail as references to its KV rows (seq_refs); PostgreSQL keeps the tail
      // literally, so it has no such column (null here either way: these requests have no KV rows to refer to).
      if (TABLE[kind] === "requests") {
        expect(expected.seq_refs).toBeNull();
        delete expected.seq_refs;
      }
      const got = (await pgRow(TABLE[kind], String(event.id))) as Record<string, unknown>;
      // PostgreSQL's stand-in for SQLite's rowid (what attribution's causes name a request by): not a column there.
      if (TABLE[kind] === "requests") {
        expect(got.rid).toEqual(expect.any(Number));
        delete got.rid;
      }
      // kv_events' and tools' insertion number (pg 0009, the attribution job's cursor): SQLite's rowid, not a column.
      if ("seq" in got) {
        expect(got.seq).toEqual(expect.any(Number));
        delete got.seq;
      }
      expect(got).toEqual(normal(expected));
      const worker = sqlite.$client.prepare("SELECT * FROM workers").all();
      expect((await pg.$client`SELECT * FROM workers`).map((r) => normal(r))).toEqual(
        worker.map((r) => normal(r as never)),
      );
    });
  });

  it.each(['a "quoted", {braced} \\ name', "NULL", " ", "ünïcødé ✓ \t tab", "x,".repeat(60)])(
    "text survives the array literal exactly: %j",
    async (name) => {
      expect(await store([minimal.tool({ id: "t", name, source: name })])).toEqual(["accepted"]);
      expect(await pgRow("tools", "t")).toMatchObject({ name, source: name });
    },
  );

  it("a re-sent batch stores nothing twice: every event a duplicate, row counts unchanged", async () => {
    const batch = KINDS.map((k) => full[k]());
    expect(await store(batch)).toEqual(batch.map(() => "accepted"));
    const before = await Promise.all(ALL_TABLES.map(count));
    expect(await store(batch)).toEqual(batch.map(() => "duplicate"));
    expect(await Promise.all(ALL_TABLES.map(count))).toEqual(before);
  });

  it("returns accepted or duplicate per event in order, as SQLite does", async () => {
    const batches = [
      [minimal["kv.cleared"]({ id: "a" }), minimal["kv.cleared"]({ id: "b" })],
      [minimal["kv.cleared"]({ id: "c" }), minimal["kv.cleared"]({ id: "a" }), minimal["kv.cleared"]({ id: "c" })],
      [minimal.request({ id: "q" }), minimal.request({ id: "q", request_id: "other" }), minimal.tool({ id: "q" })],
    ];
    const sqlite = testDb();
    for (const b of batches) expect(await store(b)).toEqual(insertEvents(sqlite, rows(b), { resolvePrefix }));
  });

  // As on SQLite: events known by id alone are duplicates whichever day (partition) holds the first; those known by
  // id and ts together are new at another ts.
  it.each<[EventKind, "duplicate" | "accepted", number]>([
    ["worker.up", "duplicate", 1],
    ["planner.decision", "duplicate", 1],
    ["policy.ack", "duplicate", 1],
    ["worker.stats", "accepted", 2],
    ["route.decision", "accepted", 2],
    ["kv.removed", "accepted", 2],
  ])("%s: its id stored again on another day → %s", async (kind, status, rowsKept) => {
    expect(await store([minimal[kind]({ id: "s", ts: T0 })])).toEqual(["accepted"]);
    expect(await store([minimal[kind]({ id: "s", ts: T0 + 3 * DAY })])).toEqual([status]);
    expect(await store([minimal[kind]({ id: "s", ts: T0 + 3 * DAY })])).toEqual(["duplicate"]);
    expect(await count(TABLE[kind])).toBe(rowsKept);
  });

  it("stores nothing when the database refuses a row of the batch", async () => {
    const good = parsed(minimal["kv.cleared"]({ id: "a" })) as IngestRow;
    const broken = { ...parsed(minimal.request({ id: "b" })), api: null } as unknown as IngestRow;
    await expect(insertEventsPg(pg, [good, broken])).rejects.toThrow();
    const overflow = { ...parsed(minimal["worker.stats"]({ id: "c" })), kv_active_blocks: 2 ** 40 } as IngestRow;
    await expect(insertEventsPg(pg, [good, overflow])).rejects.toThrow();
    const fraction = { ...parsed(minimal.tool({ id: "d" })), output_tokens: 1.5 } as IngestRow;
    await expect(insertEventsPg(pg, [good, fraction])).rejects.toThrow();
    // Valid JSON and valid for SQLite, but PostgreSQL's text has no NUL: the batch is refused whole, with the reason.
    const nul = parsed(minimal.tool({ id: "e", name: "a\u0000b" })) as IngestRow;
    await expect(insertEventsPg(pg, [good, nul])).rejects.toThrow(/U\+0000/);
    expect(await Promise.all(ALL_TABLES.map(count))).toEqual(ALL_TABLES.map(() => 0));
  });

  it("refuses a batch naming a prefix_of without a resolver, storing nothing", async () => {
    const batch = rows([
      minimal["kv.cleared"]({ id: "a" }),
      minimal.request({ id: "b", request_id: "r2", prefix_of: { request_id: "r1", blocks: 1 } }),
    ]);
    await expect(insertEventsPg(pg, batch)).rejects.toThrow(/no resolvePrefix/);
    expect(await count("kv_events")).toBe(0);
  });

  it.each<[string, Raw[][]]>([
    [
      "a prefix earlier in the same batch, chained twice",
      [
        [
          turn(1, { sequence_hashes: hashes(0, 100), local_hashes: hashes(0, 100, 7) }),
          turn(2, {
            prefix_of: { request_id: "r1", blocks: 100 },
            sequence_hashes: hashes(100, 20),
            local_hashes: hashes(100, 20, 7),
          }),
          turn(3, { prefix_of: { request_id: "r2", blocks: 110 }, sequence_hashes: hashes(500, 5) }),
        ],
      ],
    ],
    [
      "a prefix stored by an earlier batch",
      [
        [turn(1, { sequence_hashes: hashes(0, 30), local_hashes: hashes(0, 30, 7) })],
        [turn(2, { prefix_of: { request_id: "r1", blocks: 30 }, sequence_hashes: [], local_hashes: hashes(9, 2) })],
      ],
    ],
    [
      "refused alone: unknown, too long, later in the batch, another session",
      [
        [turn(1, { sequence_hashes: hashes(0, 10) })],
        [
          turn(2, { prefix_of: { request_id: "r9", blocks: 1 }, sequence_hashes: hashes(0, 1) }),
          turn(3, { prefix_of: { request_id: "r1", blocks: 11 }, sequence_hashes: hashes(0, 1) }),
          turn(4, { prefix_of: { request_id: "r5", blocks: 1 }, sequence_hashes: hashes(0, 1) }),
          turn(5, { sequence_hashes: hashes(0, 3) }),
          turn(6, { session_id: "s2", prefix_of: { request_id: "r1", blocks: 2 }, sequence_hashes: hashes(0, 1) }),
          turn(7, { prefix_of: { request_id: "r1", blocks: 4 }, sequence_hashes: hashes(40, 2) }),
        ],
      ],
    ],
    [
      // The server prepends a named row's bytes when the row is in the table or was inserted by an earlier statement
      // of the batch: turns 3 and 4 name rows of the run being built (each starts the next statement), 5 and 6 stay.
      "turns naming turns of the same batch, a stored turn, with and without local lists",
      [
        [turn(1, { sequence_hashes: hashes(0, 10), local_hashes: hashes(0, 10, 5) })],
        [
          turn(2, {
            prefix_of: { request_id: "r1", blocks: 10 },
            sequence_hashes: hashes(10, 2),
            local_hashes: hashes(50, 1),
          }),
          turn(3, { prefix_of: { request_id: "r2", blocks: 11 }, sequence_hashes: hashes(12, 3), local_hashes: [] }),
          turn(4, { prefix_of: { request_id: "r3", blocks: 4 }, sequence_hashes: [] }),
          turn(5, { sequence_hashes: hashes(90, 2) }),
          turn(6, {
            prefix_of: { request_id: "r1", blocks: 0 },
            sequence_hashes: hashes(30, 1),
            local_hashes: hashes(1, 1),
          }),
          turn(7, { prefix_of: { request_id: "r4", blocks: 4 } }),
        ],
        [
          turn(8, { prefix_of: { request_id: "r7", blocks: 3 }, sequence_hashes: hashes(7, 1) }),
          turn(9, {
            prefix_of: { request_id: "r3", blocks: 5 },
            sequence_hashes: hashes(9, 1),
            local_hashes: hashes(8, 1),
          }),
        ],
      ],
    ],
  ])("prefix_of as SQLite resolves it, each row after its chain base: %s", async (_name, batches) => {
    const sqlite = testDb();
    let extending = 0;
    for (const b of batches) {
      const out = await store(b);
      expect(out).toEqual(insertEvents(sqlite, rows(b), { resolvePrefix }));
      extending += b.filter((e, i) => "prefix_of" in e && out[i] === "accepted").length;
    }
    const ids = sqlite.$client.prepare("SELECT id FROM requests ORDER BY id").pluck().all() as string[];
    const stored = await pg.$client.unsafe<StoredChains[]>(`SELECT ${storedChainColumns()} FROM requests ORDER BY id`);
    expect(stored.map((r) => r.id)).toEqual(ids);
    const whole = await wholeChainsPg(pg.$client, stored);
    for (const r of stored) {
      const c = whole.get(r.id)!;
      expect({ seq: decodeHashes(c.seq), local: decodeHashes(c.local) }).toEqual(chainStringsOf(sqlite, r.id));
      // A turn extending a stored one holds only its own hashes (every named row here is visible to its statement).
      if (r.base !== null) expect(r.seq!.byteLength / HASH_BYTES).toBe(r.seqCount! - r.seqShared);
    }
    expect(stored.filter((r) => r.base !== null)).toHaveLength(extending);
    // Rows numbered in batch order, as SQLite's rowid (runs of requests are inserted in order).
    const byRid = await pg.$client<{ id: string }[]>`SELECT id FROM requests ORDER BY rid`;
    const byRowid = sqlite.$client.prepare("SELECT id FROM requests ORDER BY rowid").pluck().all();
    expect(byRid.map((r) => r.id)).toEqual(byRowid);
  });

  it("a prefix stored before this process started is read from the table, newest same-session row first", async () => {
    const sqlite = testDb();
    const batches = [
      [turn(1, { sequence_hashes: hashes(0, 6), local_hashes: hashes(0, 6, 3) })],
      [turn(11, { id: "ev-1-again", request_id: "r1", session_id: "s2", sequence_hashes: hashes(50, 6) })],
      [turn(2, { prefix_of: { request_id: "r1", blocks: 6 }, sequence_hashes: hashes(6, 1), local_hashes: [] })],
    ];
    for (const b of batches) {
      forgetRecentRequests(pg);
      expect(await store(b)).toEqual(insertEvents(sqlite, rows(b), { resolvePrefix }));
    }
    const r = await wholeOf("ev-2");
    expect({ seq: decodeHashes(r.seq), local: decodeHashes(r.local) }).toEqual(chainStringsOf(sqlite, "ev-2"));
    expect(decodeHashes(r.seq)).toEqual(hashes(0, 7));
  });

  it("a batch in flight beside the one holding the request its prefix_of names still finds it", async () => {
    await store([minimal.tool({ id: "warm-up" })]); // the day's partitions exist before the lock below
    const blocker = await pg.$client.reserve();
    try {
      await blocker`BEGIN`;
      await blocker`LOCK TABLE tools IN ACCESS EXCLUSIVE MODE`;
      const first = store([turn(1, { sequence_hashes: hashes(0, 10) }), minimal.tool({ id: "held-up" })]);
      for (let waiting = 0; waiting === 0;)
        waiting = Number(
          (await pg.$client`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)[0]!.n,
        );
      const second = await store([
        turn(2, { prefix_of: { request_id: "r1", blocks: 10 }, sequence_hashes: hashes(10, 2) }),
      ]);
      expect(second).toEqual(["accepted"]);
      await blocker`COMMIT`;
      expect(await first).toEqual(["accepted", "accepted"]);
    } finally {
      blocker.release();
    }
    // Its batch could not name the row in flight as its base: stored whole.
    const [row] = await pg.$client<
      { base: string | null }[]
    >`SELECT chain_base AS base FROM requests WHERE id = 'ev-2'`;
    expect(row!.base).toBeNull();
    expect(decodeHashes((await wholeOf("ev-2")).seq)).toEqual(hashes(0, 12));
  });

  const M0 = T0;
  it.each<[string, Raw[][]]>([
    [
      "seen through stats only",
      [
        [
          stats("w1", M0 + 5_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 1000 }),
          stats("w1", M0 + 1_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 500 }),
          stats("w1", M0 + 9_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 2000 }),
        ],
      ],
    ],
    [
      "an older sample in a later batch",
      [
        [stats("w1", M0 + 5_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 1000 })],
        [stats("w1", M0 + 1_000, 0, 0, { kv_active_blocks: 0, kv_total_blocks: 500 })],
      ],
    ],
    [
      "stats then worker.up in one batch",
      [[stats("w1", M0 + 1_000, 0, 0), minimal["worker.up"]({ ts: M0 + 2_000, role: "aggregated" })]],
    ],
    [
      "up, down, up again, and a duplicate up",
      [
        [minimal["worker.up"]({ id: "u1", ts: M0 })],
        [minimal["worker.down"]({ ts: M0 + 1_000, reason: "drained" })],
        [minimal["worker.up"]({ id: "u2", ts: M0 + 2_000 }), minimal["worker.up"]({ id: "u1", ts: M0 + 9_000 })],
      ],
    ],
    ["worker.down for a worker never seen", [[minimal["worker.down"]({ ts: M0 + 7, worker_id: "w2" })]]],
  ])("workers table as on SQLite: %s", async (_name, batches) => {
    const sqlite = testDb();
    for (const b of batches) {
      insertEvents(sqlite, rows(b));
      await store(b);
    }
    const want = sqlite.$client.prepare("SELECT * FROM workers ORDER BY worker_id").all();
    expect(await pg.$client`SELECT * FROM workers ORDER BY worker_id`).toEqual(want);
  });

  it("puts rows in the partition of their UTC day, making partitions as days appear", async () => {
    const day = Math.floor(T0 / DAY);
    const d0 = day * DAY;
    await store([
      minimal["worker.stats"]({ id: "a", ts: d0 + 5 }),
      minimal["kv.cleared"]({ id: "b", ts: d0 + DAY }),
      minimal.tool({ id: "c", ts: d0 + 2 * DAY - 1 }),
    ]);
    const parts = await listPartitions(pg.$client);
    for (const d of [day, day + 1]) expect(parts.filter((p) => p.day === d)).toHaveLength(8);
    const where = await pg.$client.unsafe(
      "SELECT tableoid::regclass::text AS part FROM worker_stats UNION ALL SELECT tableoid::regclass::text FROM kv_events UNION ALL SELECT tableoid::regclass::text FROM tools ORDER BY 1",
    );
    expect(where.map((r) => r.part)).toEqual(["kv_events_d20251130", "tools_d20251130", "worker_stats_d20251129"]);
  });
});
