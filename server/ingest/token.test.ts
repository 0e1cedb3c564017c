import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { revokeToken } from "../../db/store/accounts";
import { putSettingIfAbsent } from "../../db/sqlite/settings";
import type { Db } from "../../db/sqlite/client";
import { sqliteStore } from "../../db/store/store";
import { createToken, ensureConfiguredTokens, ingestTokenMatch } from "../auth/tokens";
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

const accepts = async (db: Db, token: string, configured: string | undefined) =>
  (await ingestTokenMatch(sqliteStore(db), `Bearer ${token}`, configured)) !== null;

describe("ensureIngestToken / ingestTokenMatch", () => {
  it("with a configured token: generates nothing and accepts only that token", async () => {
    const db = testDb();
    expect(await ensureIngestToken(sqliteStore(db), TOKEN, 1)).toBeNull();
    expect(db.$client.prepare("SELECT count(*) FROM api_tokens").pluck().get()).toBe(0);
    expect(await accepts(db, TOKEN, TOKEN)).toBe(true);
    expect(await accepts(db, "sy_other_token_0123456789abcdefXY", TOKEN)).toBe(false);
  });

  it("without one: generates a token once, stores only its hash, and accepts it", async () => {
    const db = testDb();
    const token = await ensureIngestToken(sqliteStore(db), undefined, 1);
    expect(token).toMatch(/^sy_ingest_[A-Za-z0-9_-]{32}$/);
    expect(await ensureIngestToken(sqliteStore(db), undefined, 2)).toBeNull();
    const stored = db.$client.prepare("SELECT digest FROM api_tokens WHERE scope = 'ingest'").pluck().all() as string[];
    expect(stored).toEqual([digest(token!).toString("hex")]);
    expect(stored.join()).not.toContain(token!);
    expect(await accepts(db, token!, undefined)).toBe(true);
  });

  it("a stored token keeps working after a token is configured", async () => {
    const db = testDb();
    const generated = (await ensureIngestToken(sqliteStore(db), undefined, 1))!;
    expect(await accepts(db, generated, TOKEN)).toBe(true);
    expect(await accepts(db, TOKEN, TOKEN)).toBe(true);
  });

  it("two databases get different tokens", async () => {
    expect(await ensureIngestToken(sqliteStore(testDb()), undefined, 1)).not.toBe(
      await ensureIngestToken(sqliteStore(testDb()), undefined, 1),
    );
  });

  it("a token stored as a setting before the token table is adopted, and no new one is generated", async () => {
    const db = testDb();
    putSettingIfAbsent(db, "ingest_token_sha256", digest(TOKEN).toString("hex"), 1);
    expect(await ensureIngestToken(sqliteStore(db), undefined, 2)).toBeNull();
    expect(await accepts(db, TOKEN, undefined)).toBe(true);
  });

  it("a revoked token stops at once, the configured one included", async () => {
    const db = testDb();
    const generated = (await ensureIngestToken(sqliteStore(db), undefined, 1))!;
    await ensureConfiguredTokens(sqliteStore(db), { ingest: TOKEN }, false, 1);
    const ids = db.$client.prepare("SELECT id FROM api_tokens ORDER BY id").pluck().all() as number[];
    for (const id of ids) expect(await revokeToken(sqliteStore(db), id, 2)).toBe(true);
    expect(await accepts(db, generated, TOKEN)).toBe(false);
    expect(await accepts(db, TOKEN, TOKEN)).toBe(false);
  });

  it("read and operate tokens cannot ingest; ingest and admin tokens can", async () => {
    const db = testDb();
    const made: Record<string, string> = {};
    for (const scope of ["ingest", "read", "operate", "admin"] as const)
      made[scope] = (await createToken(sqliteStore(db), { name: scope, scope, createdBy: "t" }, 1)).token;
    const accepted = await Promise.all(
      Object.entries(made).map(async ([k, v]) => [k, await accepts(db, v, undefined)]),
    );
    expect(Object.fromEntries(accepted)).toEqual({ ingest: true, read: false, operate: false, admin: true });
  });
});
