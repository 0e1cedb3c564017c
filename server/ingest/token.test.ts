import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { revokeToken } from "../../db/queries/auth";
import { putSettingIfAbsent } from "../../db/queries/settings";
import { createToken, ensureConfiguredTokens, ingestTokenDigests } from "../auth/tokens";
import { bearerMatches, ensureIngestToken } from "./token";

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

describe("ensureIngestToken / ingestTokenDigests", () => {
  it("with a configured token: generates nothing and accepts only that token", () => {
    const db = testDb();
    expect(ensureIngestToken(db, TOKEN, 1)).toBeNull();
    const digests = ingestTokenDigests(db, TOKEN);
    expect(digests).toHaveLength(1);
    expect(bearerMatches(`Bearer ${TOKEN}`, digests)).toBe(true);
  });

  it("without one: generates a token once, stores only its hash, and accepts it", () => {
    const db = testDb();
    const token = ensureIngestToken(db, undefined, 1);
    expect(token).toMatch(/^sy_ingest_[A-Za-z0-9_-]{32}$/);
    expect(ensureIngestToken(db, undefined, 2)).toBeNull();
    const stored = db.$client.prepare("SELECT digest FROM api_tokens WHERE scope = 'ingest'").pluck().all() as string[];
    expect(stored).toEqual([digest(token!).toString("hex")]);
    expect(stored.join()).not.toContain(token!);
    expect(bearerMatches(`Bearer ${token}`, ingestTokenDigests(db, undefined))).toBe(true);
  });

  it("a stored token keeps working after a token is configured", () => {
    const db = testDb();
    const generated = ensureIngestToken(db, undefined, 1)!;
    const digests = ingestTokenDigests(db, TOKEN);
    expect(bearerMatches(`Bearer ${generated}`, digests)).toBe(true);
    expect(bearerMatches(`Bearer ${TOKEN}`, digests)).toBe(true);
  });

  it("two databases get different tokens", () => {
    expect(ensureIngestToken(testDb(), undefined, 1)).not.toBe(ensureIngestToken(testDb(), undefined, 1));
  });

  it("a token stored as a setting before the token table is adopted, and no new one is generated", () => {
    const db = testDb();
    putSettingIfAbsent(db, "ingest_token_sha256", digest(TOKEN).toString("hex"), 1);
    expect(ensureIngestToken(db, undefined, 2)).toBeNull();
    expect(bearerMatches(`Bearer ${TOKEN}`, ingestTokenDigests(db, undefined))).toBe(true);
  });

  it("a revoked token stops at once, the configured one included", () => {
    const db = testDb();
    const generated = ensureIngestToken(db, undefined, 1)!;
    ensureConfiguredTokens(db, { ingest: TOKEN }, false, 1);
    const ids = db.$client.prepare("SELECT id FROM api_tokens ORDER BY id").pluck().all() as number[];
    for (const id of ids) expect(revokeToken(db, id, 2)).toBe(true);
    const digests = ingestTokenDigests(db, TOKEN);
    expect(bearerMatches(`Bearer ${generated}`, digests)).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN}`, digests)).toBe(false);
  });

  it("read and operate tokens cannot ingest; ingest and admin tokens can", () => {
    const db = testDb();
    const made = Object.fromEntries(
      (["ingest", "read", "operate", "admin"] as const).map((scope) => [
        scope,
        createToken(db, { name: scope, scope, createdBy: "t" }, 1).token,
      ]),
    );
    const digests = ingestTokenDigests(db, undefined);
    expect(
      Object.fromEntries(Object.entries(made).map(([k, v]) => [k, bearerMatches(`Bearer ${v}`, digests)])),
    ).toEqual({ ingest: true, read: false, operate: false, admin: true });
  });
});
