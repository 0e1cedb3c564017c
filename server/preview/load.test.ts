import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../db/sqlite/client";
import { chainsOf } from "../../db/sqlite/chains";
import { insertEvents } from "../../db/sqlite/ingest";
import { storedRunsAfter } from "../../db/sqlite/previews";
import { parseEvent, type TelemetryEvent } from "../ingest/events";
import { runScenario, T0 } from "../sim/test-support";
import { AFTER_MS, loadWindow, sharedPairs, WARMUP_MS } from "./load";
import { sqliteWindow } from "./window-source";

// The window read builds every turn's chain in one pass over the rows (a base built earlier in the pass reused, only
// the first sequence hash taken): each turn must hold exactly the chain the per-row reader gives for its row.

const SECONDS = 240;
const WINDOW = { from: T0 + 120_000, to: T0 + 180_000 };

let dir: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-preview-load-"));
  db = openDb(path.join(dir, "store.db"));
  const events: TelemetryEvent[] = [];
  for (const e of runScenario({ scenario: "preamble", seconds: SECONDS })) {
    const p = parseEvent(JSON.parse(JSON.stringify(e)));
    if (p.ok) events.push(p.event);
  }
  for (let i = 0; i < events.length; i += 2000) insertEvents(db, events.slice(i, i + 2000));
}, 60_000);

afterAll(() => {
  db?.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const pairs = (b: Buffer | null | undefined) => {
  if (!b) return null;
  const out: number[] = [];
  for (let i = 0; i < b.byteLength; i += 8) out.push(b.readUInt32BE(i), b.readUInt32BE(i + 4));
  return out;
};

describe("loadWindow", () => {
  it("gives every turn the chain and first sequence hash its row holds", async () => {
    const input = await loadWindow(sqliteWindow(db), WINDOW.from, WINDOW.to, {});
    const rows = db.$client
      .prepare("SELECT id FROM requests WHERE arrived_at >= ? AND arrived_at < ? ORDER BY arrived_at, rowid")
      .pluck()
      .all(WINDOW.from - WARMUP_MS, WINDOW.to + AFTER_MS) as string[];
    expect(input.turns.length).toBe(rows.length);
    const extending = input.turns.filter((t) => t.blocks !== null && t.blocks.length > 2).length;
    expect(extending).toBeGreaterThan(50);
    rows.forEach((id, i) => {
      const c = chainsOf(db, id);
      const t = input.turns[i]!;
      const want = c?.local && c.local.byteLength > 0 ? c.local : (c?.seq ?? null);
      expect(t.blocks === null ? null : [...t.blocks]).toEqual(pairs(want));
      expect(t.firstSeq).toEqual(pairs(c?.seq && c.seq.byteLength >= 8 ? c.seq.subarray(0, 8) : null));
    });
  });

  it("finds a chain's later stores by their parent hash, through the index of the KV events that have one", () => {
    const stores = db.$client
      .prepare(
        `SELECT worker_id AS w, ts, parent_hash AS parent, block_count AS blocks FROM kv_events
         WHERE op = 'stored' AND parent_hash IS NOT NULL AND (storage_tier IS NULL OR storage_tier = 'device')
         ORDER BY rowid`,
      )
      .all() as { w: string; ts: number; parent: Buffer; blocks: number }[];
    expect(stores.length).toBeGreaterThan(100);
    for (const s of stores.filter((_, i) => i % 7 === 0)) {
      // What the lookup must return: every device store of that worker in the range continuing that parent, oldest first.
      const want = stores
        .filter((o) => o.w === s.w && o.parent.equals(s.parent) && o.ts >= s.ts - 1 && o.ts < s.ts + 120_000)
        .map((o) => o.blocks);
      const got = storedRunsAfter(db, s.w, s.parent, s.ts - 1, s.ts + 120_000, 4);
      expect(got.map((r) => r.blocks)).toEqual(want.slice(0, 4));
      for (const r of got) expect(r.parent.equals(s.parent)).toBe(true);
      // Another worker's stores of the same chain are not its own.
      expect(storedRunsAfter(db, `${s.w}-other`, s.parent, s.ts - 1, s.ts + 120_000, 4)).toEqual([]);
    }
    const plan = db.$client
      .prepare(
        "EXPLAIN QUERY PLAN SELECT rowid FROM kv_events WHERE worker_id = ? AND ts >= ? AND ts < ? AND parent_hash = ?",
      )
      .all("w", 0, 1, Buffer.alloc(8)) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toContain("kv_events_parent");
  });

  it.each([
    ["a window with no traffic", T0 + 3_600_000, T0 + 3_660_000, "no recorded traffic"],
    ["a window before the recording", T0 - 600_000, T0 - 540_000, "no recorded traffic"],
  ])("refuses %s", async (_name, from, to, message) => {
    await expect(loadWindow(sqliteWindow(db), from, to, {})).rejects.toThrow(message);
  });
});

const hash = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(v);
  return b;
};

describe("sharedPairs", () => {
  const max = (1n << 64n) - 1n;
  it.each([
    ["no rows", [], []],
    ["a row with no chain", [null], [null]],
    ["an empty chain", [Buffer.alloc(0)], [[]]],
    [
      "hashes at 0, 2^63 - 1, 2^63 and 2^64 - 1",
      [Buffer.concat([hash(0n), hash((1n << 63n) - 1n), hash(1n << 63n), hash(max)])],
      [[0, 0, 0x7fffffff, 0xffffffff, 0x80000000, 0, 0xffffffff, 0xffffffff]],
    ],
    [
      "rows between empty and missing ones",
      [hash(1n), null, Buffer.alloc(0), Buffer.concat([hash(2n), hash(3n << 32n)])],
      [[0, 1], null, [], [0, 2, 3, 0]],
    ],
    ["a trailing partial hash (dropped)", [Buffer.concat([hash(5n), Buffer.from([1, 2, 3])])], [[0, 5]]],
  ])("reads %s into one shared buffer", (_name, chains, want) => {
    const out = sharedPairs(chains.map((chain) => ({ chain })));
    expect(out.map((v) => (v === null ? null : [...v]))).toEqual(want);
    const buffers = new Set(out.filter((v) => v !== null).map((v) => v.buffer));
    expect(buffers.size).toBeLessThanOrEqual(1);
    for (const b of buffers) expect(b).toBeInstanceOf(SharedArrayBuffer);
  });

  it("copies chains that are views of one buffer once, each row still reading its own hashes", () => {
    const all = Buffer.concat([1n, 2n, 3n, 4n, 5n, 6n].map(hash));
    const buffer = new ArrayBuffer(all.byteLength + 4);
    new Uint8Array(buffer).set(all);
    const view = (from: number, n: number) => Buffer.from(buffer, from * 8, n * 8);
    // Two turns of one trajectory (the second its first and more), a later one on the same bytes, an unaligned view
    // and a chain of its own.
    const odd = Buffer.from(buffer, 4, 8);
    const chains = [view(0, 2), view(0, 4), hash(9n), view(3, 3), odd];
    const out = sharedPairs(chains.map((chain) => ({ chain })));
    expect(out.map((v) => [...v!])).toEqual([
      [0, 1, 0, 2],
      [0, 1, 0, 2, 0, 3, 0, 4],
      [0, 9],
      [0, 4, 0, 5, 0, 6],
      [1, 0], // the low half of hash 1 and the high half of hash 2
    ]);
    expect(out[1]!.byteOffset).toBe(out[0]!.byteOffset);
    expect(out[3]!.byteOffset).toBe(out[0]!.byteOffset + 24);
    // One span of the six hashes, the lone chain, and the unaligned view: 64 bytes, not the 104 the rows hold.
    expect(out[0]!.buffer.byteLength).toBe(48 + 8 + 8);
  });

  it("shares the window's chains with another thread without copying them", async () => {
    const input = await loadWindow(sqliteWindow(db), WINDOW.from, WINDOW.to, {});
    const chains = input.turns.filter((t) => t.blocks !== null && t.blocks.length > 0);
    const copy = structuredClone(input);
    const i = input.turns.indexOf(chains[0]!);
    const theirs = copy.turns[i]!.blocks!;
    const was = theirs[0]!;
    theirs[0] = was ^ 1;
    expect(input.turns[i]!.blocks![0]).toBe(was ^ 1);
    theirs[0] = was;
  });
});
