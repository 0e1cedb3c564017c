import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { acceptedTokenDigests, bearerMatches, ensureIngestToken } from "./token";

const TOKEN = "sy_test_token_0123456789abcdefXY";
const digest = (s: string) => createHash("sha256").update(s).digest();

describe("bearerMatches", () => {
  it.each<[string | null, boolean]>([
    [`Bearer ${TOKEN}`, true],
    [`bearer ${TOKEN}`, true],
    [`Bearer   ${TOKEN}  `, true],
    [null, false],
    ["", false],
    ["Bearer", false],
    ["Bearer ", false],
    [TOKEN, false],
    [`Bearer ${TOKEN}x`, false],
    [`Bearer ${TOKEN.slice(1)}`, false],
    [`Bearer ${TOKEN} extra`, false],
    [`Basic ${TOKEN}`, false],
  ])("%j → %s", (header, ok) => {
    expect(bearerMatches(header, [digest("other-token-aaaaaaaa"), digest(TOKEN)])).toBe(ok);
  });

  it("accepts nothing when no token is configured", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, [])).toBe(false);
  });
});

describe("ensureIngestToken / acceptedTokenDigests", () => {
  it("with a configured token: generates nothing and accepts only that token", () => {
    const db = testDb();
    expect(ensureIngestToken(db, TOKEN, 1)).toBeNull();
    const digests = acceptedTokenDigests(db, TOKEN);
    expect(digests).toHaveLength(1);
    expect(bearerMatches(`Bearer ${TOKEN}`, digests)).toBe(true);
  });

  it("without one: generates a token once, stores only its hash, and accepts it", () => {
    const db = testDb();
    const token = ensureIngestToken(db, undefined, 1);
    expect(token).toMatch(/^sy_ingest_[A-Za-z0-9_-]{32}$/);
    expect(ensureIngestToken(db, undefined, 2)).toBeNull();
    const stored = db.$client.prepare("SELECT value FROM settings").pluck().all() as string[];
    expect(stored).toEqual([digest(token!).toString("hex")]);
    expect(stored.join()).not.toContain(token!);
    expect(bearerMatches(`Bearer ${token}`, acceptedTokenDigests(db, undefined))).toBe(true);
  });

  it("a stored token keeps working after a token is configured", () => {
    const db = testDb();
    const generated = ensureIngestToken(db, undefined, 1)!;
    const digests = acceptedTokenDigests(db, TOKEN);
    expect(bearerMatches(`Bearer ${generated}`, digests)).toBe(true);
    expect(bearerMatches(`Bearer ${TOKEN}`, digests)).toBe(true);
  });

  it("two databases get different tokens", () => {
    expect(ensureIngestToken(testDb(), undefined, 1)).not.toBe(ensureIngestToken(testDb(), undefined, 1));
  });
});
