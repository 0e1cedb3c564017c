import { describe, expect, it } from "vitest";
import { encodeHashes, LiftedHashes } from "../../db/codecs/chains";
import type { Db } from "../../db/sqlite/client";
import { testDb } from "../../test/db";
import { full, minimal, T0, type Raw } from "../../test/events";
import { decodeBody, validateItems } from "./batch";
import { ingestBody } from "./ingest";
import { liftBuffersBytes, parseLifted, parseLiftedItem } from "./lift-hashes";

const NDJSON = "application/x-ndjson";
const EDGES = [
  "0",
  "1",
  "9",
  "10",
  "4294967295",
  "4294967296",
  "9007199254740991",
  "9007199254740993",
  "99999999999999",
  "999999999999999",
  "1000000000000000",
  "1234567890123456",
  "9223372036854775807",
  "9223372036854775808",
  "10000000000000000000",
  "18446744073709551614",
  "18446744073709551615",
];

/** xorshift32 draws of u64 decimal strings of every length. */
function randomHashes(n: number, seed = 7): string[] {
  let x = seed;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
  return Array.from({ length: n }, () => {
    const v = (BigInt(next()) << 32n) | BigInt(next());
    return (v >> BigInt(next() % 64)).toString();
  });
}

/** An event with a filler field (dropped by validation) that makes its line long enough to be lifted. */
const long = (o: Raw): Raw => ({ ...o, pad: "x".repeat(1_100) });

/** The same line with a space after every list's colon: JSON.parse reads it alike, parseLifted leaves it alone. */
const spaced = (line: string) => line.replace(/_hashes":\[/g, '_hashes": [');

/** What the path without lifting answers for a body (decodeBody and validateItems as PostgreSQL's ingest uses them). */
function unlifted(text: string) {
  return validateItems(decodeBody(text, NDJSON)).results;
}

function requestRows(db: Db): unknown[] {
  return db.$client.prepare("SELECT * FROM requests ORDER BY rowid").raw().all();
}

function kvRows(db: Db): unknown[] {
  return db.$client.prepare("SELECT * FROM kv_events ORDER BY rowid").raw().all();
}

describe("parseLifted", () => {
  it("reads block_hashes into encodeHashes' bytes at every edge and length", () => {
    for (const list of [EDGES, randomHashes(3_000), ["5"]]) {
      const line = JSON.stringify(long(minimal["kv.stored"]({ block_hashes: list })));
      const v = parseLifted(line)!;
      expect(v.block_hashes).toBeInstanceOf(LiftedHashes);
      const lifted = v.block_hashes as LiftedHashes;
      expect(lifted.length).toBe(list.length);
      expect(lifted.bytes!.equals(encodeHashes(list))).toBe(true);
    }
  });

  it("gives the same fields as JSON.parse besides the lists, and counts a kv.stored's local_hashes", () => {
    const raw = long(full["kv.stored"]({ local_hashes: ["3", "4", "5"] }));
    const v = parseLifted(JSON.stringify(raw))!;
    expect((v.local_hashes as LiftedHashes).length).toBe(3);
    expect((v.local_hashes as LiftedHashes).bytes).toBeNull();
    expect({ ...v, block_hashes: raw.block_hashes, local_hashes: raw.local_hashes }).toEqual(raw);
    expect(parseLifted(JSON.stringify(long(full.request({ sequence_hashes: EDGES }))))).toBeNull();
    const removed = long(minimal["kv.removed"]({ block_hashes: ["1", "2"] }));
    expect((parseLifted(JSON.stringify(removed))!.block_hashes as LiftedHashes).length).toBe(2);
  });

  it("lifts both lists whichever comes first in the line", () => {
    const { block_hashes, local_hashes, ...rest } = long(full["kv.stored"]({ local_hashes: ["3", "4", "5"] }));
    const v = parseLifted(JSON.stringify({ local_hashes, ...rest, block_hashes }))!;
    expect((v.local_hashes as LiftedHashes).length).toBe(3);
    expect((v.block_hashes as LiftedHashes).bytes!.equals(encodeHashes(block_hashes as string[]))).toBe(true);
    expect({ ...v, block_hashes, local_hashes }).toEqual({ local_hashes, ...rest, block_hashes });
  });

  it.each<[string, string]>([
    ["a short line", JSON.stringify(minimal["kv.stored"]())],
    ["a tool", JSON.stringify(long(minimal.tool()))],
    ["spaces in the list", spaced(JSON.stringify(long(minimal["kv.stored"]())))],
    ["an escaped digit", JSON.stringify(long(minimal["kv.stored"]())).replace('"1"', '"\\u0031"')],
    ["a \\u0000 anywhere", JSON.stringify(long(minimal["kv.stored"]({ retention_class: "\u0000" })))],
    ["a number for a hash", JSON.stringify(long(minimal["kv.stored"]({ block_hashes: [1] })))],
    ["invalid JSON after the list", JSON.stringify(long(minimal["kv.stored"]())).slice(0, -1)],
    [
      "the list key in a nested object first",
      `{"id":"r","kind":"kv.removed","ts":${T0},"worker_id":"w1","x":{"block_hashes":["1"]},"block_hashes":["7"],"reason":"capacity","pad":"${"x".repeat(1_100)}"}`,
    ],
    ["a repeated key", JSON.stringify(long(minimal["kv.removed"]())).slice(0, -1) + ',"block_hashes":["2"]}'],
    ["another kind named first", JSON.stringify(long(minimal.tool({ name: '"kind":"kv.stored"' })))],
    // The list is read from the line's bytes, which are its characters only when all are ASCII.
    ["a character past ASCII anywhere", JSON.stringify(long(minimal["kv.stored"]({ retention_class: "café" })))],
    // U+0130 and U+FF10 end in 0x30 and 0x10: neither may read as a digit.
    [
      "a character ending in a digit's byte, in a hash",
      JSON.stringify(long(minimal["kv.stored"]({ block_hashes: ["1\u0130"] }))),
    ],
    ["a wide character in a hash", JSON.stringify(long(minimal["kv.stored"]({ block_hashes: ["1\uff10"] })))],
  ])("lifts nothing for %s", (_, line) => {
    expect(parseLifted(line)).toBeNull();
  });
});

describe("parseLifted after a longer line", () => {
  it("reads nothing past the line's end (a line cut inside its list, after the whole line)", () => {
    const whole = JSON.stringify(long(minimal["kv.stored"]({ block_hashes: randomHashes(200) })));
    expect(parseLifted(whole)).not.toBeNull();
    const cut = whole.slice(0, whole.indexOf('","', whole.indexOf("block_hashes")) + 3);
    expect(parseLifted(cut)).toBeNull();
    expect(parseLifted(cut + whole.slice(cut.length))).not.toBeNull();
  });

  it("reads a line longer than the buffer it keeps, and lines after it", () => {
    const big = randomHashes(60_000, 5);
    const line = JSON.stringify(long(minimal["kv.stored"]({ block_hashes: big })));
    expect(line.length * 3).toBeGreaterThan(1024 * 1024);
    expect((parseLifted(line)!.block_hashes as LiftedHashes).bytes!.equals(encodeHashes(big))).toBe(true);
    const small = JSON.stringify(long(minimal["kv.stored"]({ block_hashes: EDGES })));
    expect((parseLifted(small)!.block_hashes as LiftedHashes).bytes!.equals(encodeHashes(EDGES))).toBe(true);
  });

  it("keeps at most 2 MiB of buffers after a line of 200,000 hashes (13 MB to read it)", () => {
    const line = JSON.stringify(long(minimal["kv.stored"]({ block_hashes: randomHashes(200_000, 9) })));
    expect((parseLifted(line)!.block_hashes as LiftedHashes).length).toBe(200_000);
    expect(liftBuffersBytes()).toBeLessThanOrEqual(2 * 1024 * 1024);
    // Also when the line is not lifted after its buffer was made (a character past ASCII).
    expect(parseLifted(line.replace('"kind"', '"é":0,"kind"'))).toBeNull();
    expect(liftBuffersBytes()).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});

describe("ingest with lifted lists", () => {
  // Lines that lifting reads (compact lists) or hands to the schema (bad values, bounds): every reply item and stored
  // row must be the unlifted path's.
  const lines: Raw[] = [
    minimal["kv.stored"]({ id: "a", block_hashes: EDGES, local_hashes: ["1", "2"] }),
    minimal["kv.removed"]({ id: "b", ts: T0 + 1, block_hashes: EDGES.slice(3, 12) }),
    minimal["kv.stored"]({ id: "c", ts: T0 + 2, block_hashes: EDGES.slice(2, 14).reverse(), worker_id: "w2" }),
    minimal["kv.removed"]({ id: "d", ts: T0 + 3, block_hashes: ["18446744073709551616"] }),
    minimal["kv.stored"]({ id: "e", ts: T0 + 4, block_hashes: ["01"] }),
    minimal["kv.stored"]({ id: "f", ts: T0 + 5, block_hashes: [] }),
    minimal["kv.stored"]({ id: "g", ts: T0 + 6, block_hashes: ["1"], local_hashes: ["x"] }),
    minimal["kv.stored"]({ id: "h", ts: T0 + 7, block_hashes: randomHashes(16_385) }),
    minimal["kv.removed"]({ id: "i", ts: T0 + 8, block_hashes: ["1"], reason: "nope" }),
    minimal["kv.stored"]({ id: "j", ts: T0 + 9, block_hashes: ["123456789012345678901"] }),
    minimal["kv.stored"]({ id: "k", ts: T0 + 10, block_hashes: ["1", ""] }),
    minimal["kv.stored"]({ id: "k2", ts: T0 + 10, block_hashes: ["1\u0130", "2"] }),
    minimal["kv.stored"]({ id: "k3", ts: T0 + 10, block_hashes: ["7", "8"], retention_class: "café ☕" }),
    minimal["kv.stored"]({ id: "a", block_hashes: EDGES }),
    minimal["kv.stored"]({ id: "l", ts: T0 + 11, block_hashes: randomHashes(16_384, 3) }),
    minimal["kv.removed"]({ id: "m", ts: T0 + 12, block_hashes: randomHashes(16_384, 3).slice(100, 4000) }),
    full.request({ id: "q1", request_id: "r1", sequence_hashes: EDGES, local_hashes: EDGES.slice(0, 5) }),
    full.request({
      id: "q2",
      request_id: "r2",
      ts: T0 + 20,
      arrived_at: T0 + 10,
      prefix_of: { request_id: "r1", blocks: 5 },
      sequence_hashes: ["77", "78"],
      local_hashes: ["79"],
    }),
    full.request({ id: "q3", request_id: "r3", sequence_hashes: ["1", "-2"] }),
    full.request({ id: "q4", request_id: "r4", prefix_of: { request_id: "r1", blocks: 131_072 } }),
    full.request({ id: "q5", request_id: "r5", ts: T0 + 30, arrived_at: T0 + 20, sequence_hashes: [...EDGES, "5"] }),
  ];
  const text = lines.map((l) => JSON.stringify(long(l))).join("\n") + '\n{"kind":"kv.stored","block_hashes":["1"],\n';

  it("answers every item as the unlifted path does (errors and line numbers included)", () => {
    expect(decodeBody(text, NDJSON, parseLifted).filter((d) => d.raw !== undefined).length).toBeGreaterThan(8);
    const lifted = validateItems(decodeBody(text, NDJSON, parseLifted), parseLiftedItem).results;
    expect(lifted).toEqual(unlifted(text));
    expect(lifted.filter((r) => r.status === "rejected").length).toBe(12);
  });

  it("stores the rows the unlifted path stores, byte for byte", () => {
    const a = testDb();
    const b = testDb();
    const replyA = ingestBody(a, text, NDJSON);
    const replyB = ingestBody(b, text.split("\n").map(spaced).join("\n"), NDJSON);
    expect(replyA).toEqual(replyB);
    expect(replyA.accepted).toBe(9);
    expect(kvRows(a)).toEqual(kvRows(b));
    expect(requestRows(a)).toEqual(requestRows(b));
  });
});
