import { describe, expect, it } from "vitest";
import type { Db } from "./client";
import { testDb } from "../../test/db";
import { full, minimal, parsed, stats, T0, turn, type Raw } from "../../test/events";
import type { IngestRow } from "../rows/ingest";
import { chainStringsOf } from "./chains";
import { prepareEvents, insertEvents } from "./ingest";
import { idKey } from "../ingest/kv-rows";
import { kvBlockList } from "./kv-lists";
import { decodeHashes } from "../codecs/chains";

// prepareEvents does before the write turn what insertEvents would otherwise do in it: the rows stored, and the result
// per event, must be the same either way, batch after batch (KV lists then refer to earlier batches' rows), and every
// chain and KV list must read back as it was sent.

const TABLES = [
  "kv_events",
  "requests",
  "worker_stats",
  "worker_events",
  "route_decisions",
  "tools",
  "reasoning_spans",
];

function dump(db: Db): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = db.$client.prepare(`SELECT rowid AS _rowid, * FROM ${t} ORDER BY rowid`).raw().all();
  return out;
}

const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i));
const kvStored = (id: string, ts: number, list: string[], o: Raw = {}) =>
  minimal["kv.stored"]({ id, ts, block_hashes: list, ...o });
const kvRemoved = (id: string, ts: number, list: string[]) => minimal["kv.removed"]({ id, ts, block_hashes: list });
const chains = (n: number, blocks: number) => ({
  block_size: 16,
  sequence_hashes: hashes(1_000_000, blocks + n),
  local_hashes: hashes(2_000_000, blocks + n),
});

/** Name, batches stored one after another, and a count of the rows showing that the case exercised what it names. */
const batches: [string, Raw[][], string][] = [
  ["one of every kind", [Object.values(full).map((f) => f())], "SELECT count(*) FROM requests"],
  [
    "KV lists repeating earlier lists, in the batch and across batches",
    [
      [
        kvStored("a", T0, hashes(100, 64)),
        kvRemoved("b", T0 + 1, hashes(100, 32)),
        kvStored("c", T0 + 2, hashes(90, 80)),
      ],
      [kvStored("d", T0 + 1_000, hashes(100, 64), { worker_id: "w2" }), kvRemoved("e", T0 + 1_001, hashes(150, 14))],
      [kvStored("f", T0 + 2_000, hashes(100, 64).reverse()), minimal["kv.cleared"]({ id: "g", ts: T0 + 2_001 })],
    ],
    "SELECT count(*) FROM kv_events WHERE block_refs IS NOT NULL",
  ],
  [
    "turns extending the one before, with duplicates",
    [
      [turn(1, chains(1, 40)), turn(2, chains(2, 40)), turn(2, chains(2, 40))],
      [turn(3, chains(3, 40)), turn(1, chains(1, 40)), stats("w1", T0, 10, 5)],
      [turn(4, { ...chains(4, 40), local_hashes: undefined }), turn(5, { block_size: 16 })],
    ],
    "SELECT count(*) FROM requests WHERE chain_base IS NOT NULL",
  ],
  [
    "first turns of two sessions sharing local hashes (stored as runs)",
    [
      [
        turn(1, { ...chains(0, 64), session_id: "s1" }),
        turn(2, { ...chains(0, 64), session_id: "s2", trajectory_id: "t2" }),
      ],
      [turn(3, { ...chains(0, 70), session_id: "s3", trajectory_id: "t3" })],
    ],
    "SELECT count(*) FROM requests WHERE local_refs IS NOT NULL",
  ],
];

describe("prepareEvents", () => {
  it.each(batches)("stores the same rows as insertEvents alone: %s", (_name, raws, exercised) => {
    const plain = testDb();
    const prepared = testDb();
    for (const batch of raws) {
      const events = batch.map(parsed) as IngestRow[];
      expect(insertEvents(prepared, prepareEvents(events))).toEqual(insertEvents(plain, events));
    }
    expect(dump(prepared)).toEqual(dump(plain));
    expect(prepared.$client.prepare(exercised).pluck().get()).toBeGreaterThan(0);
    // Both ways read back as sent (a list encoded wrongly before the turn would be stored the same wrong way twice).
    const last = new Map<string, Raw>();
    for (const r of raws.flat()) if (!last.has(String(r.id))) last.set(String(r.id), r);
    for (const r of last.values()) {
      if (r.kind === "request") {
        const c = chainStringsOf(prepared, String(r.id));
        expect([c.seq, c.local]).toEqual([r.sequence_hashes ?? [], r.local_hashes ?? []]);
      }
    }
    const kv = prepared.$client
      .prepare("SELECT block_hashes AS h, block_refs AS refs FROM kv_events WHERE op != 'cleared' ORDER BY rowid")
      .all() as { h: Buffer; refs: Buffer | null }[];
    const lists = raws.flat().filter((r) => r.kind === "kv.stored" || r.kind === "kv.removed");
    expect(kv.map((k) => decodeHashes(kvBlockList(prepared, k.h, k.refs)))).toEqual([
      ...new Map(lists.map((r) => [r.id, r.block_hashes])).values(),
    ]);
  });

  it("needs nothing from a store: it only encodes and builds rows", () => {
    const events = [kvStored("a", T0, ["0", "9223372036854775807", "9223372036854775808", "18446744073709551615"])];
    const batch = prepareEvents(events.map(parsed) as IngestRow[]);
    expect(batch.lists[0]!.toString("hex")).toBe(
      "0000000000000000" + "7fffffffffffffff" + "8000000000000000" + "ffffffffffffffff",
    );
    // A KV event's row is built but for its block list columns, which depend on the store (kv-lists.ts).
    const [key, ts, cluster, , worker, count, hashes, , , , , , , , refs] = batch.rows[0]!;
    expect([key, ts, cluster, worker, count, hashes, refs]).toEqual([
      idKey("a"),
      T0,
      0,
      "w1",
      4,
      Buffer.alloc(0),
      null,
    ]);
    expect(batch.positions).toBeNull();
  });

  it("refuses, as insertEvents does, a prepared batch naming a prefix_of without a resolver, storing nothing", () => {
    const db = testDb();
    const events = [
      parsed(minimal["kv.cleared"]({ id: "a" })),
      parsed(minimal.request({ id: "b", request_id: "r2", prefix_of: { request_id: "r1", blocks: 1 } })),
    ] as IngestRow[];
    expect(() => insertEvents(db, prepareEvents(events))).toThrow(/no resolvePrefix/);
    expect(db.$client.prepare("SELECT count(*) FROM kv_events").pluck().get()).toBe(0);
  });

  it("stores nothing of a prepared batch whose transaction fails", () => {
    const db = testDb();
    const good = parsed(minimal["kv.stored"]({ id: "a" }));
    const broken = { ...parsed(minimal.request({ id: "b" })), api: null } as unknown as typeof good;
    expect(() => insertEvents(db, prepareEvents([good, broken] as IngestRow[]))).toThrow();
    expect(db.$client.prepare("SELECT count(*) FROM kv_events").pluck().get()).toBe(0);
  });
});
