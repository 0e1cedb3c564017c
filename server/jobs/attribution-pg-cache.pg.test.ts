// PostgreSQL's attribution keeps the blocks and local marks it read within an estimated byte bound
// (PG_ATTR_CACHE_BYTES, attribution-pg-index.ts): past it a step writes what changed and drops the oldest read. Blocks
// offloaded and onboarded again and again grow long interval lists; before the bound counted bytes, three simulated
// hours of that ran the thread out of memory. A small bound here stands for the real one; the causes must not change.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { ingestBodyTallied } from "../ingest/ingest";
import { ingestBodyPg } from "../ingest/pg/ingest-body";
import { testDb } from "../../test/db";
import { ndjson, type Raw } from "../../test/events";
import { freshPg, PG_TEST_URL } from "../../test/pg";
import { offloadPolicies } from "../sim/offload-report";
import { runScenario } from "../sim/test-support";
import { runAttribution } from "./attribution";
import { attributionStepPg, pgAttribution } from "./attribution-pg";

const BOUND = 256 * 1024;
vi.mock("../../lib/memory-bounds", async (original) => ({
  ...(await original<typeof import("../../lib/memory-bounds")>()),
  PG_ATTR_CACHE_BYTES: 256 * 1024,
}));

const CAUSES = `SELECT r.id, rc.recomputed, rc.cold, rc.diverged, rc.evicted, rc.routed_away, rc.unknown, rc.evicted_reason,
  rc.held_tokens, rc.wait_ms, rc.survived_tokens FROM request_causes rc JOIN requests r ON r.RID = rc.rid ORDER BY r.id`;
const plain = (rows: readonly Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])));

describe.skipIf(!PG_TEST_URL)("PostgreSQL's attribution cache under blocks moving between tiers", () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
    drop = undefined;
  });

  it("stays within its bound after every step and judges every turn as SQLite does", async () => {
    const events = runScenario({
      scenario: "offload",
      seconds: 600,
      policies: offloadPolicies("prefetch"),
    }) as unknown as Raw[];
    const db: Db = testDb();
    const fresh = await freshPg();
    drop = fresh.drop;
    for (let i = 0; i < events.length; i += 400) {
      const body = ndjson(events.slice(i, i + 400));
      ingestBodyTallied(db, body, "application/x-ndjson");
      await ingestBodyPg(fresh.pg, body, "application/x-ndjson");
    }
    runAttribution(db);

    const job = pgAttribution(fresh.pg, 0);
    let steps = 0;
    let most = 0;
    let trims = 0;
    let blocksBefore = 0;
    for (let caughtUp = false; !caughtUp && steps < 100_000; steps++) {
      caughtUp = (await attributionStepPg(job)).caughtUp;
      const ix = job.index!;
      most = Math.max(most, ix.cachedBytes);
      if (ix.cachedEntries.blocks < blocksBefore) trims++;
      blocksBefore = ix.cachedEntries.blocks;
      expect(ix.cachedBytes).toBeLessThanOrEqual(BOUND);
    }
    // The bound was reached, and the cache trimmed more than once, not merely held under it.
    expect(most).toBeGreaterThan(BOUND / 2);
    expect(trims).toBeGreaterThan(1);

    const sqlite = plain(db.$client.prepare(CAUSES.replace("RID", "rowid")).all() as Record<string, unknown>[]);
    const pg = plain(await fresh.pg.$client.unsafe(CAUSES.replace("RID", "rid")));
    expect(sqlite.length).toBeGreaterThan(50);
    expect(pg).toEqual(sqlite);
  }, 300_000);
});
