import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { full, minimal, ndjson } from "../../../test/events";
import { hashListBytes, LiftedHashes } from "../../../db/codecs/chains";
import { AppError } from "../../errors";
import { decodeForStore, pgBodyDecoder } from "./decode";
import { PgDecodePool } from "./decode-pool";

// PostgreSQL's decode threads answer exactly what decoding inline answers, refusals included (same AppError code).

const NDJSON = "application/x-ndjson";
let pool: PgDecodePool;

beforeAll(() => {
  pool = new PgDecodePool(2);
  pool.install();
});
afterAll(() => pool.close());

describe("PgDecodePool", () => {
  it("is the installed decoder until closed", () => {
    expect(pgBodyDecoder()).toBeTypeOf("function");
  });

  it.each<[string, string, string]>([
    [
      "valid, invalid and undecodable lines",
      ndjson([full.request({ id: "a" }), minimal.request({ id: "b", cached_tokens: 5_000 }), full["kv.stored"]()]) +
        "{nope\n\n" +
        ndjson([{ id: "c", kind: "constructor", ts: 1 }]),
      NDJSON,
    ],
    ["a JSON array", JSON.stringify([minimal.tool({ id: "t" }), minimal["worker.stats"]()]), "application/json"],
    ["an empty body", "", NDJSON],
  ])("%s: the same events, slots, results and kinds as inline", async (_name, body, type) => {
    const [a, b] = await Promise.all([pool.decode(body, type), pool.decode(body, type)]);
    expect(a).toEqual(decodeForStore(body, type));
    expect(b).toEqual(a);
  });

  it("gives KV events' long hash lists as bytes (lifted), which the rows take after the thread hop", async () => {
    // Long enough lines to be lifted (lift-hashes.ts reads lines of 1 kB and more); hashes at the u64 edges.
    const hashes = Array.from({ length: 200 }, (_, i) =>
      i === 0 ? "0" : i === 1 ? "18446744073709551615" : String(9_223_372_036_854_775_000n + BigInt(i)),
    );
    const body = ndjson([
      full["kv.stored"]({ id: "s", block_hashes: hashes, local_hashes: hashes }),
      full["kv.removed"]({ id: "r", block_hashes: hashes.slice(0, 150) }),
    ]);
    const inline = decodeForStore(body, NDJSON);
    const threaded = await pool.decode(body, NDJSON);
    expect(threaded.results).toEqual(inline.results);
    const listOf = (b: typeof inline, i: number) =>
      (b.events[i] as unknown as { block_hashes: LiftedHashes }).block_hashes;
    for (const [i, n] of [
      [0, 200],
      [1, 150],
    ] as const) {
      const want = hashListBytes(hashes.slice(0, n));
      // Inline: a LiftedHashes. From a thread: the same fields on a plain object (a message keeps no class), bytes as a
      // plain Uint8Array; hashListBytes gives a Buffer of the same bytes for both.
      expect(listOf(inline, i)).toBeInstanceOf(LiftedHashes);
      expect(Array.isArray(listOf(threaded, i))).toBe(false);
      expect(listOf(threaded, i).length).toBe(n);
      for (const got of [hashListBytes(listOf(inline, i)), hashListBytes(listOf(threaded, i))]) {
        expect(Buffer.isBuffer(got)).toBe(true);
        expect(got.equals(want)).toBe(true);
      }
    }
    // A kv.stored event's local_hashes are checked, not kept: a count without bytes.
    const local = (threaded.events[0] as unknown as { local_hashes: LiftedHashes }).local_hashes;
    expect(local.length).toBe(200);
    expect(local.bytes).toBeNull();
  });

  it.each<[string, string, string, string]>([
    ["invalid JSON as application/json", '[{"id":', "application/json", "BAD_REQUEST"],
    [
      "over 10,000 events",
      ndjson(Array.from({ length: 10_001 }, () => minimal["kv.cleared"]())),
      NDJSON,
      "PAYLOAD_TOO_LARGE",
    ],
  ])("%s: refused with the same code as inline", async (_name, body, type, code) => {
    expect(() => decodeForStore(body, type)).toThrow(AppError);
    const err = await pool.decode(body, type).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
  });
});
