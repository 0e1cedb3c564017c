import { encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { MAX_HASHES, parseEvent } from "../../ingest/events";
import type { KvBatch } from "./decode";
import { mapBatch } from "./map";
import { advance, gapMessage, type SequenceState } from "./sequence";
import { readMessage } from "./stream";

const ctx = { sourceId: "vllm-a", workerId: "w1", seq: 7n, receivedAt: 1_764_417_700_000 };
const batch = (events: KvBatch["events"], tsMs: number | null = 1_764_417_600_250): KvBatch => ({
  tsMs,
  dpRank: null,
  events,
  unknown: {},
  problems: [],
});
const stored = (blockHashes: string[], parentHash: string | null = null, medium: string | null = null) =>
  ({ type: "stored", blockHashes, parentHash, blockSize: 16, tokenCount: 16 * blockHashes.length, medium }) as const;

describe("mapBatch", () => {
  it("maps each event kind for the configured worker, with deterministic ids and valid events", () => {
    const r = mapBatch(
      batch([
        stored(["1", "18446744073709551615"]),
        { type: "removed", blockHashes: ["1"], medium: "GPU" },
        { type: "cleared", medium: null },
      ]),
      ctx,
    );
    expect(r.events).toEqual([
      {
        id: "zmq:vllm-a:7:1764417600250000:0",
        ts: 1_764_417_600_250,
        source: "vllm-a",
        worker_id: "w1",
        kind: "kv.stored",
        block_hashes: ["1", "18446744073709551615"],
        parent_hash: null,
      },
      {
        id: "zmq:vllm-a:7:1764417600250000:1",
        ts: 1_764_417_600_250,
        source: "vllm-a",
        worker_id: "w1",
        kind: "kv.removed",
        block_hashes: ["1"],
        reason: "capacity",
      },
      {
        id: "zmq:vllm-a:7:1764417600250000:2",
        ts: 1_764_417_600_250,
        source: "vllm-a",
        worker_id: "w1",
        kind: "kv.cleared",
      },
    ]);
    for (const e of r.events) expect(parseEvent(e).ok).toBe(true);
  });

  it("a batch without a usable ts takes the receive time (and ids say so)", () => {
    const [e] = mapBatch(batch([{ type: "cleared", medium: null }], null), ctx).events;
    expect(e).toMatchObject({ ts: ctx.receivedAt, id: `zmq:vllm-a:7:r${ctx.receivedAt}:0` });
  });

  it("the same batch replayed maps to the same ids; a restarted publisher (same seq, new ts) to new ones", () => {
    const a = mapBatch(batch([stored(["1"])]), ctx).events[0]!.id;
    expect(mapBatch(batch([stored(["1"])]), ctx).events[0]!.id).toBe(a);
    expect(mapBatch(batch([stored(["1"])], 1_764_417_900_000), ctx).events[0]!.id).not.toBe(a);
  });

  it("a restarted publisher's first batch starts with a kv.cleared (a new engine's cache is empty)", () => {
    const r = mapBatch(batch([stored(["1"])]), { ...ctx, seq: 0n, restarted: true }).events;
    expect(r.map((e) => [e.kind, e.id])).toEqual([
      ["kv.cleared", "zmq:vllm-a:0:1764417600250000:restart"],
      ["kv.stored", "zmq:vllm-a:0:1764417600250000:0"],
    ]);
  });

  it("maps each medium to its storage tier (vLLM GPU/CPU/DISK, Dynamo device/host_pinned/disk/external) and refuses others", () => {
    const removed = (h: string, medium: string) => ({ type: "removed" as const, blockHashes: [h], medium });
    const r = mapBatch(
      batch([
        stored(["1"], null, "GPU"),
        stored(["2"], null, "CPU"),
        stored(["3"], null, "cpu"),
        stored(["4"], null, "DISK"),
        stored(["5"], null, "host_pinned"),
        stored(["6"], null, "external"),
        stored(["7"]),
        stored(["8"], null, "NVME_OF"),
        removed("2", "CPU"),
        { type: "cleared", medium: "CPU" },
      ]),
      ctx,
    );
    expect(
      r.events.map((e) => [
        e.kind,
        (e as { block_hashes?: string[] }).block_hashes?.[0],
        (e as { storage_tier?: string }).storage_tier,
      ]),
    ).toEqual([
      ["kv.stored", "1", undefined],
      ["kv.stored", "2", "host"],
      ["kv.stored", "3", "host"],
      ["kv.stored", "4", "disk"],
      ["kv.stored", "5", "host"],
      ["kv.stored", "6", "shared"],
      ["kv.stored", "7", undefined],
      ["kv.removed", "2", "host"],
    ]);
    expect(r.skippedMedia).toEqual({ NVME_OF: 1 });
    for (const e of r.events) expect(parseEvent(e).ok).toBe(true);
  });

  it("splits a BlockStored above MAX_HASHES in order, chaining parents", () => {
    const hashes = Array.from({ length: MAX_HASHES * 2 + 1 }, (_, i) => String(i + 1));
    const r = mapBatch(batch([stored(hashes, "99")]), ctx).events as {
      block_hashes: string[];
      parent_hash: string | null;
    }[];
    expect(r.map((e) => e.block_hashes.length)).toEqual([MAX_HASHES, MAX_HASHES, 1]);
    expect(r.map((e) => e.parent_hash)).toEqual(["99", String(MAX_HASHES), String(MAX_HASHES * 2)]);
    for (const e of r) expect(parseEvent(e).ok).toBe(true);
  });
});

describe("sequence gaps", () => {
  const cases: [string, (bigint | null)[], bigint[], string[]][] = [
    ["in order from any start", [null], [5n, 6n, 7n], ["first", "next", "next"]],
    ["one missed", [null], [0n, 2n], ["first", "gap"]],
    ["several missed, then in order", [null], [0n, 1n, 5n, 6n], ["first", "next", "gap", "next"]],
    ["publisher restart (back to 0)", [null], [10n, 11n, 0n, 1n], ["first", "next", "restart", "next"]],
    ["the same one again (a restart that sent only seq 0 before)", [null], [0n, 0n, 1n], ["first", "restart", "next"]],
    ["near u64 max", [null], [2n ** 64n - 3n, 2n ** 64n - 1n], ["first", "gap"]],
  ];
  it.each(cases)("%s", (_n, _start, seqs, kinds) => {
    let state: SequenceState = { next: null };
    const seen: string[] = [];
    for (const s of seqs) {
      const r = advance(state, s);
      state = r.state;
      seen.push(r.step.kind);
    }
    expect(seen).toEqual(kinds);
  });

  it("a gap names the missed range and count", () => {
    const r = advance({ next: 2n }, 5n);
    expect(r.step).toEqual({ kind: "gap", from: 2n, to: 4n, missed: 3n });
    expect(r.state).toEqual({ next: 6n });
    if (r.step.kind === "gap")
      expect(gapMessage("tcp://h:5557", r.step)).toMatch(
        /^sequence gap from tcp:\/\/h:5557: missed 3 batches \(seq 2–4\)/,
      );
    expect(gapMessage("e", { from: 9n, to: 9n, missed: 1n })).toMatch(/missed 1 batch \(seq 9\)/);
  });
});

describe("readMessage", () => {
  const mctx = { sourceId: "s", workerId: "w1", receivedAt: 1_764_417_700_000 };
  const frames = (seq: bigint, payload: Uint8Array) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(seq);
    return [Buffer.from(""), b, payload];
  };
  const good = encode([1_764_417_600, [["AllBlocksCleared"]]]);

  it("a malformed payload still advances the sequence, so no false gap follows", () => {
    let state: SequenceState = { next: null };
    const a = readMessage(state, frames(0n, Uint8Array.from([0xc1])), mctx);
    expect(a.outcome.error).toMatch(/^seq 0: payload is not valid msgpack/);
    state = a.state;
    const b = readMessage(state, frames(1n, good), mctx);
    expect(b.outcome.step).toEqual({ kind: "next" });
    expect(b.outcome.events).toHaveLength(1);
  });

  it("a sequence going back (publisher restart) clears the worker's blocks before the new batch", () => {
    const r = readMessage({ next: 40n }, frames(0n, good), mctx);
    expect(r.outcome.step).toEqual({ kind: "restart", expected: 40n });
    expect(r.outcome.events.map((e) => e.kind)).toEqual(["kv.cleared", "kv.cleared"]);
    expect(r.state).toEqual({ next: 1n });
  });

  it("a message with the wrong frame count is an error and leaves the sequence alone", () => {
    const r = readMessage({ next: 4n }, [Buffer.from("x"), good], mctx);
    expect(r.outcome.error).toMatch(/expected 3 frames/);
    expect(r.state).toEqual({ next: 4n });
  });
});
