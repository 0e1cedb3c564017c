import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { full, minimal, ndjson } from "../../test/events";
import { AppError } from "../errors";
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
