import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../db/store/store";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { digestHex } from "./secrets";
import { ingestTokenMatch } from "./tokens";

// The ingest token check over the store, written once and run on each engine (ingest-token.test.ts: SQLite;
// ingest-token.pg.test.ts: PostgreSQL). `a` checks, `b` is another process changing the tokens.

const T = 1_800_000_000_000;
const CONFIGURED = "sy_configured_token_0123456789abcdef";

const addToken = (s: Store, token: string, scope: string) =>
  s.db
    .insert(s.t.apiTokens)
    .values({ name: `${scope} token`, scope, digest: digestHex(token), hint: "…", createdBy: "t", createdAt: T });
const revoke = (s: Store, token: string) =>
  s.db
    .update(s.t.apiTokens)
    .set({ revokedAt: T })
    .where(eq(s.t.apiTokens.digest, digestHex(token)));

export function ingestTokenCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`the ingest token check on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    /** configured null: no SWITCHYARD_INGEST_TOKEN. */
    const check = (header: string | null, configured: string | null = CONFIGURED) =>
      ingestTokenMatch(s.a, header, configured ?? undefined);

    it("ingest and admin tokens may ingest; read and operate tokens may not", async () => {
      for (const scope of ["ingest", "admin", "read", "operate"]) await addToken(s.b, `sy_${scope}_token_x`, scope);
      const out: Record<string, boolean> = {};
      for (const scope of ["ingest", "admin", "read", "operate"])
        out[scope] = (await check(`Bearer sy_${scope}_token_x`)) !== null;
      expect(out).toEqual({ ingest: true, admin: true, read: false, operate: false });
      expect(await check("Bearer sy_ingest_token_x")).toBe(digestHex("sy_ingest_token_x"));
    });

    it("the configured token may ingest without a row, and stops once its row is revoked", async () => {
      expect(await check(`Bearer ${CONFIGURED}`)).toBe(digestHex(CONFIGURED));
      expect(await check(`Bearer ${CONFIGURED}`, null)).toBeNull();
      await addToken(s.b, CONFIGURED, "ingest");
      await revoke(s.b, CONFIGURED);
      expect(await check(`Bearer ${CONFIGURED}`)).toBeNull();
    });

    it("a token revoked by another process stops at once", async () => {
      await addToken(s.b, "sy_ingest_token_y", "ingest");
      expect(await check("Bearer sy_ingest_token_y")).not.toBeNull();
      await revoke(s.b, "sy_ingest_token_y");
      expect(await check("Bearer sy_ingest_token_y")).toBeNull();
    });

    it.each<[string, string | null]>([
      ["no header", null],
      ["an empty header", ""],
      ["Bearer without a token", "Bearer "],
      ["the bare token", CONFIGURED],
      ["Basic auth", `Basic ${CONFIGURED}`],
      ["the token with a suffix", `Bearer ${CONFIGURED}x`],
      ["two words", `Bearer ${CONFIGURED} extra`],
      ["an unknown token", "Bearer sy_unknown_token_0123456789abcdef"],
      ["a token of 10,000 characters", `Bearer ${"x".repeat(10_000)}`],
    ])("refuses %s", async (_name, header) => {
      expect(await check(header)).toBeNull();
    });
  });
}
