import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Db } from "./client";
import { testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import type { IngestRow } from "../rows/ingest";
import { chainStringsOf } from "./chains";
import { prepareEvents, insertEvents } from "./ingest";
import { kvBlockList } from "./kv-lists";
import { decodeHashes } from "../codecs/chains";

// The rows ingest stores for a fixed stream shaped like a cluster's (KV lists stored, evicted leaf first and stored
// again on another worker; turns extending the one before; first turns sharing a system prompt at an offset), as a
// digest per table recorded from the code before a change to the encoding's speed: such a change must store the same
// bytes. A change that means to store other bytes updates the digests and says why (migration 0023: kv_events keeps
// op and reason as small integer codes and no session_id; migration 0026: every row ends with cluster_id, 0 here, and
// the rows' other bytes are the digests' of before it).

const DIGESTS = {
  kv_events: "24835c984498732081059c28d9903d6b3065864f505b8d5fafafc3dcb58f613a",
  requests: "17dde89439cfbdc6eff60ffd5627e82e96c6a9fec5228702579f295fe573056a",
};

/** xorshift32: the same stream on every run and engine version. */
function random(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

/** A u64 hash as decimal text from two 32-bit draws (covers values past 2^63). */
const hash = (rnd: (n: number) => number) => String(BigInt(rnd(2 ** 32)) * 4_294_967_296n + BigInt(rnd(2 ** 32)));

/** Batches of raw events: 12 sessions of turns over 4 workers in 16 batches, each turn's new blocks stored before its request. */
function stream(): Raw[][] {
  const rnd = random(20_261_201);
  const prompt = Array.from({ length: 96 }, () => hash(rnd));
  const sessions = Array.from({ length: 12 }, (_, s) => ({
    seq: [] as string[],
    local: prompt.slice(rnd(8)),
    worker: `w${s % 4}`,
    turns: 0,
  }));
  const held = new Map<string, string[][]>();
  const batches: Raw[][] = [];
  let ts = T0;
  let n = 0;
  for (let b = 0; b < 16; b++) {
    const batch: Raw[] = [];
    for (let k = 0; k < 30; k++) {
      ts += 1 + rnd(400);
      const s = sessions[rnd(sessions.length)]!;
      const add = 1 + rnd(40);
      const fresh = Array.from({ length: add }, () => hash(rnd));
      s.seq = [...s.seq, ...fresh];
      s.local = [...s.local, ...Array.from({ length: add }, () => hash(rnd))];
      const lists = held.get(s.worker) ?? [];
      batch.push(minimal["kv.stored"]({ id: `ks-${n++}`, ts, worker_id: s.worker, block_hashes: fresh }));
      lists.push(fresh);
      if (lists.length > 6) {
        const gone = lists.splice(rnd(lists.length), 1)[0]!;
        batch.push(
          minimal["kv.removed"]({ id: `kr-${n++}`, ts, worker_id: s.worker, block_hashes: [...gone].reverse() }),
        );
        if (rnd(2) === 0)
          batch.push(minimal["kv.stored"]({ id: `ko-${n++}`, ts, worker_id: "w9", block_hashes: gone }));
      }
      held.set(s.worker, lists);
      const id = `rq-${n++}`;
      batch.push(
        minimal.request({
          id,
          request_id: id,
          session_id: `s${sessions.indexOf(s)}`,
          trajectory_id: "main",
          source: "sim",
          worker_id: s.worker,
          arrived_at: ts - 100,
          ts: ts + 200,
          block_size: 16,
          sequence_hashes: s.seq,
          local_hashes: s.local,
        }),
      );
      s.turns++;
    }
    batches.push(batch);
  }
  return batches;
}

function digest(db: Db, table: string): string {
  const h = crypto.createHash("sha256");
  for (const row of db.$client.prepare(`SELECT rowid, * FROM ${table} ORDER BY rowid`).raw().iterate())
    h.update(JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString("hex") : v)) + "\n");
  return h.digest("hex");
}

describe("ingest's stored bytes", () => {
  const raws = stream();

  it.each([
    ["events as they are", false],
    ["prepared before the write turn", true],
  ])("are the recorded ones for a fixed stream: %s", (_name, prepare) => {
    const db = testDb();
    for (const batch of raws) {
      const events = batch.map(parsed) as IngestRow[];
      const out = insertEvents(db, prepare ? prepareEvents(events) : events);
      expect(out.every((s) => s === "accepted")).toBe(true);
    }
    // The stream exercises what it is meant to: lists and tails as references, turns as extensions, first turns as runs.
    const count = (sql: string) => db.$client.prepare(sql).pluck().get() as number;
    expect(count("SELECT count(*) FROM kv_events WHERE block_refs IS NOT NULL")).toBeGreaterThan(10);
    expect(count("SELECT count(*) FROM requests WHERE seq_refs IS NOT NULL")).toBeGreaterThan(10);
    expect(count("SELECT count(*) FROM requests WHERE chain_base IS NOT NULL")).toBeGreaterThan(100);
    expect(count("SELECT count(*) FROM requests WHERE local_refs IS NOT NULL")).toBeGreaterThan(0);
    expect({ kv_events: digest(db, "kv_events"), requests: digest(db, "requests") }).toEqual(DIGESTS);
    // And they read back as sent.
    for (const r of raws.flat()) {
      if (r.kind !== "request") continue;
      const c = chainStringsOf(db, String(r.id));
      expect([c.seq, c.local]).toEqual([r.sequence_hashes, r.local_hashes]);
    }
    const kv = db.$client
      .prepare("SELECT block_hashes AS h, block_refs AS refs FROM kv_events ORDER BY rowid")
      .all() as { h: Buffer; refs: Buffer | null }[];
    const lists = raws.flat().filter((r) => r.kind !== "request");
    expect(kv.map((k) => decodeHashes(kvBlockList(db, k.h, k.refs)))).toEqual(lists.map((r) => r.block_hashes));
  });
});
