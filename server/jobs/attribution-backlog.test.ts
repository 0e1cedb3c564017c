import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import { insertEvents } from "../../db/sqlite/ingest";
import { dirtyBlocks, kvApplied } from "../../db/sqlite/attribution-index";
import { isBusy, openDb, type Db } from "../../db/sqlite/client";
import { idKey } from "../../db/ingest/kv-rows";
import { attributionStep, notBegun, runAttribution } from "./attribution";
import { applyKvEvents, kvNeededBy } from "./attribution-request";

// A KV backlog (e.g. an hour ingested before the job runs) is applied as the requests reach its times, not all
// before the first request is judged; the causes are the same either way.

const BS = 4;
let n = 0;
const id = (p: string) => `${p}-${++n}`;

const stored = (worker: string, ts: number, hashes: string[]): Raw =>
  minimal["kv.stored"]({ id: id("kvs"), ts, worker_id: worker, block_hashes: hashes });
const removed = (worker: string, ts: number, hashes: string[], reason = "capacity"): Raw =>
  minimal["kv.removed"]({ id: id("kvr"), ts, worker_id: worker, block_hashes: hashes, reason });
const cleared = (worker: string, ts: number): Raw => minimal["kv.cleared"]({ id: id("kvc"), ts, worker_id: worker });
const req = (rid: string, at: number, worker: string, seq: string[], cached = 0): Raw =>
  minimal.request({
    id: id("req"),
    ts: at + 50,
    request_id: rid,
    session_id: `s-${rid}`,
    trajectory_id: `s-${rid}-main`,
    worker_id: worker,
    arrived_at: at,
    first_token_at: at + 10,
    finished_at: at + 50,
    input_tokens: seq.length * BS,
    cached_tokens: cached,
    block_size: BS,
    sequence_hashes: seq,
    local_hashes: seq.map((h) => String(Number(h) + 1_000_000)),
  });

const rowidOf = (db: Db, eventId: unknown) =>
  db.$client
    .prepare("SELECT rowid FROM kv_events WHERE id_key = ?")
    .pluck()
    .get(idKey(String(eventId))) as number;

function causes(db: Db): unknown[] {
  return db.$client.prepare("SELECT * FROM request_causes ORDER BY rid").raw().all();
}

/**
 * A request every 400 ms for 60 s on four workers (many request batches, hundreds of KV events), each with one of ten
 * chains that was stored on another worker or removed from its own at exactly its arrival; removals of other chains
 * and clears in between.
 */
function busyMinute(): Raw[] {
  const out: Raw[] = [];
  const chain = (m: number) => [1, 2, 3].map((j) => String(m * 100 + j));
  for (let k = 0; k < 600; k++) {
    const t = T0 + k * 100;
    const q = k >> 2;
    if (k % 4 === 0) {
      const on = q % 4;
      const c = chain(q % 10);
      if (k % 8 === 0) out.push(stored(`w${(on + 1) % 4}`, t, c));
      else out.push(stored(`w${on}`, t - 50, c), removed(`w${on}`, t, c, q % 3 ? "capacity" : "ttl"));
      out.push(req(`r${k}`, t, `w${on}`, c));
    } else if (k % 4 === 2) out.push(removed(`w${(q + 2) % 4}`, t, chain((q * 3) % 10), "capacity"));
    if (k % 97 === 0) out.push(cleared(`w${(q + 3) % 4}`, t));
  }
  return out;
}

describe("KV events needed before a request", () => {
  it("are the events up to its arrival, including events inserted late for an earlier time", () => {
    const db = testDb();
    const early = [stored("w1", T0 + 100, ["1"]), stored("w1", T0 + 200, ["2"]), stored("w1", T0 + 300, ["3"])];
    insertEvents(db, early.map(parsed));
    expect(kvNeededBy(db, T0 + 50)).toBe(0);
    expect(kvNeededBy(db, T0 + 100)).toBe(rowidOf(db, early[0]!.id));
    expect(kvNeededBy(db, T0 + 250)).toBe(rowidOf(db, early[1]!.id));
    const late = stored("w2", T0 + 20, ["4"]);
    const future = stored("w2", T0 + 5_000, ["5"]);
    insertEvents(db, [parsed(late), parsed(future)]);
    expect(kvNeededBy(db, T0 + 120)).toBe(rowidOf(db, late.id));
    expect(kvNeededBy(db, T0 + 4_999)).toBe(rowidOf(db, late.id));
    expect(kvNeededBy(db, T0 + 5_000)).toBe(rowidOf(db, future.id));
  });

  it("a backlog is applied as the requests reach its times, with the same causes as applying it all first", () => {
    const events = busyMinute().map(parsed);
    const all = testDb();
    insertEvents(all, events);
    while (applyKvEvents(all, 1_000) > 0);
    runAttribution(all);

    const db = testDb();
    insertEvents(db, events);
    const kvTotal = db.$client.prepare("SELECT count(*) FROM kv_events").pluck().get() as number;
    let r = attributionStep(db);
    while (r.requests === 0) r = attributionStep(db);
    expect(kvApplied(db)).toBeGreaterThan(0);
    expect(kvApplied(db)).toBeLessThan(kvTotal / 2);
    runAttribution(db);
    expect(kvApplied(db)).toBe(kvTotal);
    expect(causes(db).length).toBe(150);
    expect(causes(db)).toEqual(causes(all));
    const sums = db.$client.prepare("SELECT sum(evicted) > 0, sum(routed_away) > 0 FROM request_causes").raw().get();
    expect(sums).toEqual([1, 1]);
  });
});

describe("the pause while ingest is busy", () => {
  it("runs before each of the job's transactions, never inside one, and changes no cause", () => {
    const events = busyMinute().map(parsed);
    const plain = testDb();
    insertEvents(plain, events);
    runAttribution(plain);

    const db = testDb();
    insertEvents(db, events);
    let pauses = 0;
    let inside = 0;
    runAttribution(db, 1_000_000, Infinity, () => {
      pauses++;
      if (db.$client.inTransaction) inside++;
    });
    expect(pauses).toBeGreaterThanOrEqual(150 / 25);
    expect(inside).toBe(0);
    expect(causes(db)).toEqual(causes(plain));
  });
});

describe("ingest holding the write lock", () => {
  it("leaves the job's cached index as it was when a transaction cannot begin, and changes no cause", () => {
    const events = busyMinute().map(parsed);
    const plain = testDb();
    insertEvents(plain, events);
    runAttribution(plain);

    // A file (the lock is between connections): the job's with a short busy timeout, and "ingest"'s.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-attr-busy-"));
    const file = path.join(dir, "s.db");
    const db = openDb(file, 20);
    const ingest = openDb(file);
    try {
      insertEvents(db, events);
      let failures = 0;
      let seed = 7;
      let done = false;
      for (let steps = 0; !done && steps < 5_000; steps++) {
        try {
          done = attributionStep(db, () => {
            // A tenth of the transactions (drawn at random, seeded) find the lock taken: each waits 20 ms, then
            // gives up before it began.
            seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
            if (seed % 10 === 0) ingest.$client.exec("BEGIN IMMEDIATE");
          }).caughtUp;
        } catch (err) {
          expect(isBusy(err)).toBe(true);
          expect(notBegun(err)).toBe(true);
          failures++;
        } finally {
          if (ingest.$client.inTransaction) ingest.$client.exec("COMMIT");
        }
      }
      expect(done).toBe(true);
      expect(failures).toBeGreaterThanOrEqual(3);
      expect(causes(db)).toEqual(causes(plain));
    } finally {
      db.$client.close();
      ingest.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the dirty index blocks in memory across the failure instead of reading them back", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-attr-busy-"));
    const file = path.join(dir, "s.db");
    const db = openDb(file, 20);
    const ingest = openDb(file);
    try {
      insertEvents(db, busyMinute().map(parsed));
      // The first flush of the index finds the lock taken: the blocks it was to write stay dirty in memory.
      let dirty = 0;
      let thrown: unknown = null;
      try {
        attributionStep(db, () => {
          dirty = dirtyBlocks(db);
          if (dirty > 0) ingest.$client.exec("BEGIN IMMEDIATE");
        });
      } catch (err) {
        thrown = err;
      } finally {
        if (ingest.$client.inTransaction) ingest.$client.exec("COMMIT");
      }
      expect(notBegun(thrown)).toBe(true);
      expect(dirty).toBeGreaterThan(0);
      expect(dirtyBlocks(db)).toBe(dirty);
    } finally {
      db.$client.close();
      ingest.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
