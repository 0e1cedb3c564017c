import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgDb } from "./client";
import { insertPlans, planParams, type Value } from "./rows";
import { BLOCKS_BY_KEY } from "./attribution";
import { freshPg, PG_TEST_URL } from "../../test/pg";

// The ingest's statements are prepared once per connection, and PostgreSQL then keeps a generic plan made from the
// table's statistics at that moment. On a fresh database those are a small table never analyzed (autovacuum looks at
// most once a minute), and during a burst of ingest they stay so. The requests' insert joined the row its prefix_of
// names with a plain join, whose generic plan hashed the whole requests table on every statement: a benchmark's hour
// of traffic took twice the database time it needs. It now looks the named row up by its key (today only to check that
// the row a turn names as its chain base is there, db/pg/chains.ts).

describe.skipIf(!PG_TEST_URL)("PostgreSQL ingest's generic plans on a table not yet analyzed", () => {
  let pg: PgDb;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
  });
  afterAll(() => drop?.());

  /** The generic plan PostgreSQL keeps for a plan's statement (EXPLAIN of a PREPARE, generic plans forced). */
  async function genericPlan(sql: string, params: string[]): Promise<string> {
    const quote = (v: string) => `'${v.replaceAll("'", "''")}'`;
    return pg.$client.begin(async (tx) => {
      await tx.unsafe("SET LOCAL plan_cache_mode = force_generic_plan");
      await tx.unsafe(`PREPARE ingest_plan AS ${sql}`);
      const rows = await tx.unsafe<{ "QUERY PLAN": string }[]>(
        `EXPLAIN EXECUTE ingest_plan(${params.map(quote).join(", ")})`,
      );
      await tx.unsafe("DEALLOCATE ingest_plan");
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
  }

  it("the requests' insert checks the row a prefix_of names through its primary key, not by scanning the table", async () => {
    const plan = insertPlans(() => false).request;
    // A row of nulls has the statement's types; EXPLAIN does not run it.
    const params = planParams(plan, [Array<Value>(plan.bytes.length).fill(null)]);
    const text = await genericPlan(plan.sql, params);
    expect(text).toMatch(/Index (Only )?Scan using requests_pkey on requests b/);
    expect(text).not.toMatch(/Seq Scan on requests/);
  });

  it("the attribution job reads attr_blocks by its primary key, not by scanning the table", async () => {
    const text = await genericPlan(BLOCKS_BY_KEY, ["{0123456789abcdef}"]);
    expect(text).toContain("Index Scan using attr_blocks_pkey on attr_blocks");
    expect(text).not.toMatch(/Seq Scan on attr_blocks/);
  });
});
