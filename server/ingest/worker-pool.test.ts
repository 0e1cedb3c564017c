import fs from "node:fs";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { minimal, ndjson, stats, T0 } from "../../test/events";
import { AppError } from "../errors";
import type { BatchReply } from "./batch";
import { ingestBusySignal } from "./busy-signal";
import { ingestRunner } from "./runner";
import { IngestPool } from "./worker-pool";
import { useIngestPool } from "../../test/ingest-pool";

const NDJSON = "application/x-ndjson";
const temp = useIngestPool("switchyard-pool-");

describe("IngestPool (worker threads on their own connections)", () => {
  it("stores concurrent batches exactly once each, with per-item results", async () => {
    const batch = (n: number) =>
      Array.from({ length: 50 }, (_, i) => stats(`w${n}`, T0 + i * 1000, 100 * i, 50 * i, { id: `b${n}-${i}` }));
    const bodies = [0, 1, 2, 3].map((n) =>
      ndjson([...batch(n), minimal.request({ id: "shared-request" }), "not json"]),
    );
    const outcomes = await Promise.all(bodies.map((b) => temp.pool.run(b, NDJSON)));
    const replies = outcomes.map((r) => JSON.parse(r.json) as BatchReply);
    expect(replies.map((r) => r.rejected)).toEqual([1, 1, 1, 1]);
    expect(replies.reduce((n, r) => n + r.accepted, 0)).toBe(4 * 50 + 1);
    expect(replies.reduce((n, r) => n + r.duplicate, 0)).toBe(3);
    const db = new Database(temp.file, { readonly: true });
    expect(db.prepare("SELECT count(*) FROM worker_stats").pluck().get()).toBe(200);
    expect(db.prepare("SELECT count(*) FROM requests").pluck().get()).toBe(1);
    expect(db.prepare("SELECT sum(samples) FROM worker_stats_1m").pluck().get()).toBe(200);
    db.close();
  });

  it("takes a body as its bytes (moved to the worker, decoded there) with the same results as its text", async () => {
    const tool = (id: string) => minimal.tool({ id, name: "Grep ✓ — ünïcode 🧪" });
    const body = ndjson([tool("bytes-1"), "not json", tool("bytes-2")]);
    // A Buffer owning its memory is moved; a view into a larger buffer (a pooled Buffer's slab) is copied first.
    const own = Buffer.from(body, "utf8");
    const slab = Buffer.alloc(own.byteLength + 32);
    own.copy(slab, 16);
    const view = slab.subarray(16, 16 + own.byteLength);
    const moved = new Uint8Array(own);
    const fromBytes = JSON.parse((await temp.pool.run(moved, NDJSON)).json) as BatchReply;
    expect(fromBytes).toMatchObject({ accepted: 2, rejected: 1 });
    expect(moved.byteLength).toBe(0);
    expect(JSON.parse((await temp.pool.run(view, NDJSON)).json)).toMatchObject({
      accepted: 0,
      duplicate: 2,
      rejected: 1,
    });
    expect(view.byteLength).toBe(own.byteLength);
    const db = new Database(temp.file, { readonly: true });
    expect(db.prepare("SELECT name FROM tools WHERE id = 'bytes-1'").pluck().get()).toBe("Grep ✓ — ünïcode 🧪");
    db.close();
  });

  it("publishes bodies in flight on the busy signal until each is answered", async () => {
    const signal = ingestBusySignal();
    const before = signal.inFlight();
    const runs = [0, 1, 2].map((n) =>
      temp.pool.run(ndjson([stats("busy", T0 + n * 1000, n, 0, { id: `busy-${n}` })]), NDJSON),
    );
    expect(signal.inFlight()).toBe(before + 3);
    expect(signal.busy()).toBe(true);
    await Promise.all(runs);
    expect(signal.inFlight()).toBe(before);
    expect(signal.lastActive()).not.toBeNull();
  });

  it("stores bodies in the order they were handed in, so a compact turn finds its prefix in the body before", async () => {
    const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i));
    const turn = (n: number, o: Record<string, unknown>) =>
      minimal.request({ id: `ord-${n}`, request_id: `ord-r${n}`, session_id: "ord", arrived_at: T0 + n, ...o });
    // A large body (slow to validate) with the first turn, then a tiny one with the turn extending it.
    const big = ndjson([
      ...Array.from({ length: 3_000 }, (_, i) => stats("ord-w", T0 + i * 1000, 10 * i, 5 * i, { id: `ord-s${i}` })),
      turn(1, { sequence_hashes: hashes(1, 2_000) }),
    ]);
    const small = ndjson([turn(2, { prefix_of: { request_id: "ord-r1", blocks: 2_000 }, sequence_hashes: ["9"] })]);
    const [a, b] = await Promise.all([temp.pool.run(big, NDJSON), temp.pool.run(small, NDJSON)]);
    expect((JSON.parse(a.json) as BatchReply).accepted).toBe(3_001);
    expect(JSON.parse(b.json) as BatchReply).toMatchObject({ accepted: 1, rejected: 0 });
  });

  it("checkpoints the WAL into the database file on its own thread while batches are stored", async () => {
    const size = () => fs.statSync(temp.file).size;
    const before = size();
    const body = ndjson(
      Array.from({ length: 2_000 }, (_, i) => stats("ckpt-w", T0 + i * 1000, 10 * i, 5 * i, { id: `ckpt-${i}` })),
    );
    expect(JSON.parse((await temp.pool.run(body, NDJSON)).json)).toMatchObject({ accepted: 2_000 });
    // Only a checkpoint writes pages into the database file itself (commits append to the WAL).
    const deadline = Date.now() + 10_000;
    while (size() <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(size()).toBeGreaterThan(before);
  });

  it.each([
    ["text/plain", "x", "UNSUPPORTED_MEDIA_TYPE"],
    ["application/json", "{not json", "BAD_REQUEST"],
    [NDJSON, Array.from({ length: 10_001 }, () => "{}").join("\n"), "PAYLOAD_TOO_LARGE"],
  ])("refuses %s bodies with the same error as inline ingest (%#)", async (type, body, code) => {
    const err = await temp.pool.run(body, type).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
  });

  it("is the process's runner once installed, and not after close", async () => {
    const other = new IngestPool(temp.file, 1);
    other.install();
    expect(ingestRunner()).toBeDefined();
    expect(JSON.parse((await ingestRunner()!("", NDJSON)).json)).toEqual({
      accepted: 0,
      duplicate: 0,
      rejected: 0,
      items: [],
    });
    await other.close();
    expect(ingestRunner()).toBeUndefined();
  });
});
