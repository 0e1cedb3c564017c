import { encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import {
  batchTsMs,
  decodeBatch,
  decodeEvent,
  hashToDecimal,
  MAX_ARRAY,
  MAX_BATCH_EVENTS,
  splitFrames,
  type KvBatch,
} from "./decode";

const pack = (v: unknown) => encode(v, { useBigInt64: true });
const BIG = 2n ** 63n + 12_345n; // above 2^53: a JS number would round it
const TS = 1_764_417_600.25; // float Unix seconds, as vLLM sends

function decoded(v: unknown): KvBatch {
  const r = decodeBatch(pack(v));
  if (!r.ok) throw new Error(r.error);
  return r.batch;
}

const seqFrame = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};

describe("hashToDecimal", () => {
  const sha = Uint8Array.from({ length: 32 }, (_, i) => i + 1); // last 8 bytes 0x19..0x20
  it.each<[string, unknown, string | null]>([
    ["small uint", 7, "7"],
    ["zero", 0, "0"],
    ["uint64 above 2^53 (bigint)", BIG, "9223372036854788153"],
    ["uint64 max", 2n ** 64n - 1n, "18446744073709551615"],
    ["negative int64 (Python hash) as two's complement", -1n, "18446744073709551615"],
    ["negative small int as two's complement", -2, "18446744073709551614"],
    ["8 bytes big-endian", Uint8Array.from([0, 0, 0, 0, 0, 0, 1, 0]), "256"],
    ["32-byte sha256: low 64 bits (vLLM's int conversion)", sha, 0x191a1b1c1d1e1f20n.toString()],
    ["short byte string left-padded", Uint8Array.from([1, 2]), "258"],
    ["decimal text", "18446744073709551615", "18446744073709551615"],
    ["decimal text with leading zeros is normalized", "007", "7"],
    ["hex text", "0xff", "255"],
    ["decimal text above u64", "18446744073709551616", null],
    ["empty bytes", new Uint8Array(0), null],
    ["float", 1.5, null],
    ["unsafe JS number", 2 ** 60, null],
    ["nil", null, null],
    ["word", "abc", null],
    ["map", { a: 1 }, null],
  ])("%s", (_n, input, out) => {
    expect(hashToDecimal(input)).toBe(out);
  });
});

describe("batchTsMs", () => {
  it.each<[string, unknown, number | null]>([
    ["float seconds", TS, 1_764_417_600_250],
    ["integer ms", 1_764_417_600_250, 1_764_417_600_250],
    ["ns as bigint", 1_764_417_600_250_000_000n, 1_764_417_600_250],
    ["missing", undefined, null],
    ["negative", -1, null],
    ["text", "now", null],
  ])("%s", (_n, input, out) => {
    expect(batchTsMs(input)).toBe(out);
  });
});

describe("decodeBatch: the two encodings", () => {
  const positional = [
    TS,
    [
      ["BlockStored", [BIG, 5], null, Array.from({ length: 32 }, (_, i) => i), 16, null, "GPU"],
      ["BlockRemoved", [BIG], "GPU"],
      ["AllBlocksCleared"],
    ],
    0,
  ];
  const mapped = {
    ts: TS,
    events: [
      {
        type: "BlockStored",
        block_hashes: [BIG, 5],
        parent_block_hash: null,
        token_ids: Array.from({ length: 32 }, (_, i) => i),
        block_size: 16,
        lora_id: null,
        medium: "GPU",
      },
      { type: "BlockRemoved", block_hashes: [BIG], medium: "GPU" },
      { type: "AllBlocksCleared" },
    ],
    data_parallel_rank: 0,
  };
  const expected: KvBatch = {
    tsMs: 1_764_417_600_250,
    dpRank: 0,
    events: [
      {
        type: "stored",
        blockHashes: ["9223372036854788153", "5"],
        parentHash: null,
        blockSize: 16,
        tokenCount: 32,
        medium: "GPU",
      },
      { type: "removed", blockHashes: ["9223372036854788153"], medium: "GPU" },
      { type: "cleared", medium: null },
    ],
    unknown: {},
    problems: [],
  };

  it.each([
    ["positional arrays (msgspec array_like)", positional],
    ["maps keyed by type", mapped],
  ])("%s decode to the same batch, uint64 exact", (_n, v) => {
    expect(decoded(v)).toEqual(expected);
  });

  it("vLLM offloading: the CPU medium is carried through, positional and mapped alike", () => {
    expect(
      decoded([
        TS,
        [
          ["BlockStored", [7], null, [1, 2], 2, null, "CPU"],
          ["BlockRemoved", [7], "CPU"],
        ],
      ]).events,
    ).toEqual([
      { type: "stored", blockHashes: ["7"], parentHash: null, blockSize: 2, tokenCount: 2, medium: "CPU" },
      { type: "removed", blockHashes: ["7"], medium: "CPU" },
    ]);
  });

  it("Dynamo router events name the tier storage_tier; it is read as the medium", () => {
    const b = decoded({
      ts: TS,
      events: [
        {
          type: "BlockStored",
          block_hashes: [3],
          parent_block_hash: 2,
          token_ids: [1, 2],
          block_size: 2,
          storage_tier: "host_pinned",
        },
      ],
    });
    expect(b.events).toEqual([
      { type: "stored", blockHashes: ["3"], parentHash: "2", blockSize: 2, tokenCount: 2, medium: "host_pinned" },
    ]);
  });

  it("older vLLM: no data_parallel_rank, no medium, parent as bytes", () => {
    const b = decoded([TS, [["BlockStored", [1], Uint8Array.from([0, 9]), [1, 2], 2, null]]]);
    expect(b.dpRank).toBeNull();
    expect(b.events).toEqual([
      { type: "stored", blockHashes: ["1"], parentHash: "9", blockSize: 2, tokenCount: 2, medium: null },
    ]);
  });

  it("SGLang's map batch names the rank attn_dp_rank", () => {
    expect(decoded({ ts: TS, events: [], attn_dp_rank: 3 }).dpRank).toBe(3);
  });

  it("byte-string hashes map like vLLM's int conversion", () => {
    const h = Uint8Array.from([...new Array(24).fill(0xaa), 0, 0, 0, 0, 0, 0, 0, 42]);
    expect(decoded([TS, [["BlockRemoved", [h], null]]]).events).toEqual([
      { type: "removed", blockHashes: ["42"], medium: null },
    ]);
  });

  it("unknown event types are counted and skipped; the known ones are kept", () => {
    const b = decoded([TS, [["BlockPinned", [1]], { type: "BlockPinned" }, ["AllBlocksCleared"]]]);
    expect(b.unknown).toEqual({ BlockPinned: 2 });
    expect(b.events).toHaveLength(1);
    expect(b.problems).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    ["hashes not an array", ["BlockStored", 5, null], /block_hashes must be an array/],
    ["empty hashes", ["BlockRemoved", []], /block_hashes is empty/],
    ["float hash", ["BlockRemoved", [1, 2.5]], /block_hashes\.1: not a 64-bit integer/],
    ["bad parent", ["BlockStored", [1], 1.5, [], 16], /parent_block_hash/],
    ["no tag", [[1], null], /no event type/],
    ["scalar event", 42, /must be an array or a map/],
  ])("malformed event (%s) is reported; the good one beside it is kept", (_n, bad, re) => {
    const b = decoded([TS, [bad, ["AllBlocksCleared"]]]);
    expect(b.events).toEqual([{ type: "cleared", medium: null }]);
    expect(b.problems).toHaveLength(1);
    expect(b.problems[0]).toMatch(/^event 0: /);
    expect(b.problems[0]).toMatch(re);
  });

  it.each<[string, Uint8Array, RegExp]>([
    ["invalid msgpack (0xc1 never used)", Uint8Array.from([0xc1]), /not valid msgpack/],
    ["truncated msgpack", pack([TS, [["BlockStored", [1, 2, 3]]]]).slice(0, 8), /not valid msgpack/],
    ["a scalar", pack(5), /must be a batch/],
    ["events not an array", pack([TS, "x"]), /events must be an array/],
    [
      "array above MAX_ARRAY (bounded before allocation)",
      Uint8Array.from([0xdd, 0x7f, 0xff, 0xff, 0xff]),
      /not valid msgpack/,
    ],
  ])("payload %s is refused with a clear error", (_n, payload, re) => {
    const r = decodeBatch(payload);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(re);
  });

  it("a huge batch is read only up to MAX_BATCH_EVENTS, and says so", () => {
    const events = Array.from({ length: MAX_BATCH_EVENTS + 3 }, () => ["AllBlocksCleared"]);
    const b = decoded([TS, events]);
    expect(b.events).toHaveLength(MAX_BATCH_EVENTS);
    expect(b.problems[0]).toMatch(/only the first/);
    expect(MAX_ARRAY).toBeGreaterThan(MAX_BATCH_EVENTS);
  });

  it("malformed-event messages are capped at 20 per batch", () => {
    const b = decoded([TS, Array.from({ length: 100 }, () => 1)]);
    expect(b.problems).toHaveLength(20);
  });
});

describe("decodeEvent", () => {
  it("reads medium from positional BlockRemoved and map AllBlocksCleared", () => {
    expect(decodeEvent(["BlockRemoved", [3], "CPU"])).toEqual({
      event: { type: "removed", blockHashes: ["3"], medium: "CPU" },
    });
    expect(decodeEvent({ type: "AllBlocksCleared", medium: "GPU" })).toEqual({
      event: { type: "cleared", medium: "GPU" },
    });
  });
});

describe("splitFrames", () => {
  const payload = pack([TS, []]);
  it("reads topic, big-endian sequence and payload", () => {
    const r = splitFrames([Buffer.from("kv@w1"), seqFrame(2n ** 64n - 2n), payload]);
    expect(r).toEqual({ ok: true, frames: { topic: "kv@w1", seq: 2n ** 64n - 2n, payload } });
  });
  it.each<[string, Uint8Array[], RegExp]>([
    ["two frames", [seqFrame(1n), payload], /expected 3 frames.*got 2/],
    ["four frames", [Buffer.from(""), seqFrame(1n), payload, payload], /got 4/],
    ["short sequence", [Buffer.from(""), Buffer.from([1, 2, 3, 4]), payload], /8 bytes/],
  ])("%s is an error", (_n, frames, re) => {
    const r = splitFrames(frames);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(re);
  });
});
