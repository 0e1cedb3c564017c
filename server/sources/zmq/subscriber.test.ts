import { encode } from "@msgpack/msgpack";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Router, XPublisher } from "zeromq";
import type { Db } from "../../../db/sqlite/client";
import { getSourceStatus } from "../../../db/store/sources";
import { sqliteStore } from "../../../db/store/store";
import { sqliteSink } from "../sink";
import { testDb } from "../../../test/db";
import { sourceReporter, type SourceReport } from "../status";
import { zmqSourceConfig } from "../../../lib/sources/zmq-config";
import { startZmqSource, summarize } from "./subscriber";
import { decodeHash, decodeHashes } from "../../../db/codecs/chains";

// A real ZMQ publisher in the test, the real subscriber, a real (in-memory, migrated) database.

const pack = (v: unknown) => encode(v, { useBigInt64: true });
const BIG = 2n ** 63n + 12_345n;
const BIG_TEXT = "9223372036854788153";
const TS = 1_764_417_600.5;

const seqFrame = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};

type KvRow = {
  op: string;
  worker_id: string;
  block_hashes: string | null;
  parent_hash: string | null;
  reason: string | null;
  ts: number;
  source: string;
};
/** kv_events rows with their stored (binary) hashes read back as comma-joined decimals. */
const kvRows = (db: Db): KvRow[] =>
  (
    db.$client
      .prepare("SELECT op, worker_id, block_hashes, parent_hash, reason, ts, source FROM kv_events ORDER BY rowid")
      .all() as (Omit<KvRow, "block_hashes" | "parent_hash"> & {
      block_hashes: Buffer | null;
      parent_hash: Buffer | null;
    })[]
  ).map((r) => ({
    ...r,
    block_hashes: r.block_hashes && decodeHashes(r.block_hashes).join(","),
    parent_hash: decodeHash(r.parent_hash),
  }));

/** The registry's reporter, plus a list of the error texts it was given. */
function recordingReporter(db: Db, id: string) {
  const real = sourceReporter(sqliteStore(db), id, "zmq-kv", "vLLM A");
  const errors: string[] = [];
  const report: SourceReport = {
    ok: (at, seen) => real.ok(at, seen),
    error: (at, message) => {
      errors.push(message);
      return real.error(at, message);
    },
  };
  return { report, errors };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function publisher() {
  const pub = new XPublisher({ linger: 0 });
  await pub.bind("tcp://127.0.0.1:*");
  cleanups.push(() => pub.close());
  return { pub, endpoint: pub.lastEndpoint! };
}

/** Wait until the subscriber's subscription reached the publisher (XPUB sees it), so nothing sent is lost. */
async function subscribed(pub: XPublisher) {
  const [msg] = await pub.receive();
  expect(msg![0]).toBe(1);
}

describe("startZmqSource against a real ZMQ publisher", () => {
  it("ingests both encodings, keeps uint64 exact, survives bad messages and reports a sequence gap", async () => {
    const db = testDb();
    const { pub, endpoint } = await publisher();
    const { report, errors } = recordingReporter(db, "vllm-a");
    const config = zmqSourceConfig.parse({ endpoint, topic: "kv", worker_id: "w1", block_size: 16 });
    const stop = startZmqSource(sqliteSink(db), "vllm-a", config, report, { flushMs: 30 });
    cleanups.push(stop);
    await subscribed(pub);

    const sha = Uint8Array.from([...new Array(24).fill(0xee), 0, 0, 0, 0, 0, 0, 0x01, 0x00]); // low 64 bits = 256
    const errorsShow = (re: RegExp) =>
      vi.waitFor(() => expect(errors.join("\n")).toMatch(re), { timeout: 5_000, interval: 25 });
    await pub.send([
      "kv",
      seqFrame(0n),
      pack([TS, [["BlockStored", [BIG, 5], null, new Array(32).fill(1), 16, null, "GPU"]], 0]),
    ]);
    await pub.send([
      "kv",
      seqFrame(1n),
      pack({
        ts: TS + 1,
        events: [
          {
            type: "BlockStored",
            block_hashes: [sha],
            parent_block_hash: 5,
            token_ids: [],
            block_size: 16,
            lora_id: null,
            medium: "GPU",
          },
          { type: "BlockRemoved", block_hashes: [BIG], medium: "GPU" },
        ],
      }),
    ]);
    await pub.send(["other", seqFrame(99n), pack([TS, [["AllBlocksCleared"]]])]); // another topic: not subscribed
    await vi.waitFor(() => expect(kvRows(db)).toHaveLength(3), { timeout: 5_000, interval: 25 });
    expect(errors).toEqual([]);
    // seq 2 and 3 never sent: a gap
    await pub.send([
      "kv",
      seqFrame(4n),
      pack([
        TS + 2,
        [
          ["BlockRemoved", [5], "GPU"],
          ["BlockPinned", [1]],
          ["BlockStored", [7], null, [], 16, null, "TAPE"],
        ],
      ]),
    ]);
    await errorsShow(/missed 2 batches/);
    await pub.send(["kv", seqFrame(5n), Buffer.from([0xc1, 0x00])]); // malformed msgpack
    await errorsShow(/seq 5: payload is not valid msgpack/);
    await pub.send(["kv", seqFrame(6n)]); // wrong frame count: unreadable, so seq 6 counts as missed too
    await errorsShow(/expected 3 frames \[topic, sequence, payload\], got 2/);
    await pub.send(["kv", seqFrame(7n), pack([TS + 3, [["AllBlocksCleared"], ["BlockRemoved", ["oops"]]]])]);
    await errorsShow(/seq 7: event 1: block_hashes\.0: not a 64-bit integer/);
    await stop();

    expect(kvRows(db)).toEqual([
      {
        op: "stored",
        worker_id: "w1",
        block_hashes: `${BIG_TEXT},5`,
        parent_hash: null,
        reason: null,
        ts: 1_764_417_600_500,
        source: "vllm-a",
      },
      {
        op: "stored",
        worker_id: "w1",
        block_hashes: "256",
        parent_hash: "5",
        reason: null,
        ts: 1_764_417_601_500,
        source: "vllm-a",
      },
      {
        op: "removed",
        worker_id: "w1",
        block_hashes: BIG_TEXT,
        parent_hash: null,
        reason: "capacity",
        ts: 1_764_417_601_500,
        source: "vllm-a",
      },
      {
        op: "removed",
        worker_id: "w1",
        block_hashes: "5",
        parent_hash: null,
        reason: "capacity",
        ts: 1_764_417_602_500,
        source: "vllm-a",
      },
      {
        op: "cleared",
        worker_id: "w1",
        block_hashes: null,
        parent_hash: null,
        reason: "cleared",
        ts: 1_764_417_603_500,
        source: "vllm-a",
      },
    ]);
    expect(errors[0]).toBe(
      `sequence gap from ${endpoint}: missed 2 batches (seq 2–3); blocks stored or removed in them are unknown until the next clear`,
    );
    expect(errors).toHaveLength(4);
    expect(errors[3]).toMatch(/^sequence gap .*missed 1 batch \(seq 6\).*; seq 7: event 1/);

    const status = (await getSourceStatus(sqliteStore(db), "vllm-a"))!;
    expect(status).toMatchObject({ kind: "zmq-kv", name: "vLLM A", gaps: 2, eventsTotal: 5 });
    expect(status.lastError).not.toBeNull();
    expect(status.detail).toMatchObject({
      endpoint,
      worker_id: "w1",
      batches: 6,
      missed_batches: "3",
      malformed: 2,
      last_seq: "7",
      block_size: 16,
      dp_rank: 0,
      unknown_types: { BlockPinned: 1 },
      skipped_media: { TAPE: 1 },
    });
  });

  /** A publisher whose replay ROUTER (vLLM's protocol) still buffers the batches `kept`; seq 1 and 2 are lost on SUB. */
  async function replayScenario(sourceId: string, kept: bigint[]) {
    const db = testDb();
    const { pub, endpoint } = await publisher();
    const router = new Router({ linger: 0 });
    await router.bind("tcp://127.0.0.1:*");
    cleanups.push(() => router.close());
    const batches = new Map<bigint, Buffer>();
    for (let s = 0n; s < 4n; s++)
      batches.set(
        s,
        Buffer.from(pack([TS + Number(s), [["BlockStored", [100n + s], s === 0n ? null : 99n + s, [], 16, null]]])),
      );
    const requests: bigint[] = [];
    void (async () => {
      for await (const [client, , start] of router) {
        const from = start!.readBigUInt64BE(0);
        requests.push(from);
        for (const s of kept)
          if (s >= from) await router.send([client!, Buffer.alloc(0), seqFrame(s), batches.get(s)!]);
        await router.send([
          client!,
          Buffer.alloc(0),
          Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
          Buffer.alloc(0),
        ]);
      }
    })().catch(() => {});

    const { report, errors } = recordingReporter(db, sourceId);
    const config = zmqSourceConfig.parse({ endpoint, worker_id: "w2", replay_endpoint: router.lastEndpoint });
    const stop = startZmqSource(sqliteSink(db), sourceId, config, report, { flushMs: 30 });
    cleanups.push(stop);
    await subscribed(pub);
    await pub.send(["", seqFrame(0n), batches.get(0n)!]);
    await pub.send(["", seqFrame(3n), batches.get(3n)!]);
    await vi.waitFor(() => expect(kvRows(db).map((r) => r.block_hashes)).toContain("103"), {
      timeout: 5_000,
      interval: 25,
    });
    await stop();
    return { db, errors, requests, endpoint };
  }

  it("fills a gap from the publisher's replay socket (vLLM's ROUTER protocol) without double counting", async () => {
    const { db, errors, requests } = await replayScenario("vllm-r", [0n, 1n, 2n, 3n]);
    expect(requests).toEqual([1n]);
    expect(kvRows(db).map((r) => r.block_hashes)).toEqual(["100", "101", "102", "103"]);
    expect(errors).toEqual([]); // nothing was lost
    expect(await getSourceStatus(sqliteStore(db), "vllm-r")).toMatchObject({
      gaps: 0,
      eventsTotal: 4,
      detail: { replayed_batches: 2, recovered_gaps: 1, missed_batches: "0" },
    });
  });

  it("a replay that no longer has every missed batch still counts the gap and says how much it recovered", async () => {
    const { db, errors, endpoint } = await replayScenario("vllm-p", [2n, 3n]);
    expect(kvRows(db).map((r) => r.block_hashes)).toEqual(["100", "102", "103"]);
    expect(errors).toEqual([
      `sequence gap from ${endpoint}: missed 2 batches (seq 1–2); blocks stored or removed in them are unknown until the next clear (replay recovered 1 of 2)`,
    ]);
    expect(await getSourceStatus(sqliteStore(db), "vllm-p")).toMatchObject({
      gaps: 1,
      detail: { replayed_batches: 1, recovered_gaps: 0, missed_batches: "1" },
    });
  });

  it("reconnects when the publisher comes back on the same address, and reports what it missed", async () => {
    const db = testDb();
    const first = await publisher();
    const { report, errors } = recordingReporter(db, "vllm-c");
    const stop = startZmqSource(
      sqliteSink(db),
      "vllm-c",
      zmqSourceConfig.parse({ endpoint: first.endpoint, worker_id: "w3" }),
      report,
      { flushMs: 30 },
    );
    cleanups.push(stop);
    await subscribed(first.pub);
    await first.pub.send(["", seqFrame(0n), pack([TS, [["BlockStored", [1], null, [], 16, null]]])]);
    await vi.waitFor(() => expect(kvRows(db)).toHaveLength(1), { timeout: 5_000, interval: 25 });

    first.pub.close();
    await vi.waitFor(() => expect(errors.join("\n")).toMatch(/disconnected from .*; reconnecting/), {
      timeout: 5_000,
      interval: 25,
    });
    const again = new XPublisher({ linger: 0 });
    await again.bind(first.endpoint);
    cleanups.push(() => again.close());
    await subscribed(again);
    await again.send(["", seqFrame(3n), pack([TS + 1, [["BlockRemoved", [1]]]])]);
    await vi.waitFor(() => expect(kvRows(db)).toHaveLength(2), { timeout: 5_000, interval: 25 });
    // a new engine process behind the same address: its sequence starts again and its cache is empty
    await again.send(["", seqFrame(0n), pack([TS + 2, [["BlockStored", [9], null, [], 16, null]]])]);
    await vi.waitFor(() => expect(kvRows(db)).toHaveLength(4), { timeout: 5_000, interval: 25 });
    await stop();

    expect(kvRows(db).map((r) => `${r.op} ${r.block_hashes ?? ""}`.trim())).toEqual([
      "stored 1",
      "removed 1",
      "cleared",
      "stored 9",
    ]);
    expect(errors.join("\n")).toContain("missed 2 batches (seq 1–2)");
    expect(await getSourceStatus(sqliteStore(db), "vllm-c")).toMatchObject({
      gaps: 1,
      eventsTotal: 4,
      detail: { connected: true, restarts: 1 },
    });
  });

  it("reports an unreachable publisher instead of staying silent, and stops cleanly", async () => {
    const db = testDb();
    const { report, errors } = recordingReporter(db, "vllm-x");
    const stop = startZmqSource(
      sqliteSink(db),
      "vllm-x",
      zmqSourceConfig.parse({ endpoint: "tcp://127.0.0.1:9", worker_id: "w4" }),
      report,
      { flushMs: 20, heartbeatMs: 60 },
    );
    await vi.waitFor(() => expect(errors).toContain("not connected to tcp://127.0.0.1:9; retrying"), {
      timeout: 5_000,
      interval: 25,
    });
    await stop();
    expect(await getSourceStatus(sqliteStore(db), "vllm-x")).toMatchObject({
      lastSuccessAt: null,
      lastError: "not connected to tcp://127.0.0.1:9; retrying",
    });
  });
});

describe("summarize", () => {
  it.each<[string[], string]>([
    [["a"], "a"],
    [["seq 5: bad", "sequence gap from e: missed 1 batch"], "sequence gap from e: missed 1 batch; seq 5: bad"],
    [["a", "b", "c", "d", "e"], "a; b; c (+2 more)"],
  ])("%j → %s", (errors, line) => {
    expect(summarize(errors)).toBe(line);
  });
});
