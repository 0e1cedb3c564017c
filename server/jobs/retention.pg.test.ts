import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgDb } from "../../db/pg/client";
import { insertEventsPg } from "../../db/pg/ingest";
import { DAY_MS, dayOf, listPartitions } from "../../db/pg/partitions";
import type { IngestRow } from "../../db/rows/ingest";
import { minimal, parsed, T0 } from "../../test/events";
import { freshPg, PG_TEST_URL } from "../../test/pg";
import { retentionSweep, sweepRetentionPg, tierCutoffs } from "./retention";

// The leader's retention sweep on PostgreSQL: whole days of the partitioned tables dropped, the unpartitioned tables
// (requests, rollups) deleted row by row in batches, tables SQLite has and PostgreSQL lacks skipped.

describe.skipIf(!PG_TEST_URL)("retention sweep on PostgreSQL", () => {
  let pg: PgDb;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
  });
  afterAll(() => drop?.());

  const d0 = dayOf(T0) * DAY_MS;
  const count = async (table: string) =>
    Number((await pg.$client.unsafe(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);

  it("drops the partitions of days past their tier and deletes older requests and rollup rows in batches", async () => {
    const events = [0, 1, 2, 3].flatMap((d) => {
      const ts = d0 + d * DAY_MS + 1_000;
      return [
        minimal["worker.stats"]({ id: `s${d}`, ts }),
        minimal.tool({ id: `t${d}`, ts, started_at: ts }),
        ...[0, 1, 2].map((i) =>
          minimal.request({ id: `q${d}-${i}`, request_id: `r${d}-${i}`, ts, arrived_at: ts + i }),
        ),
      ];
    });
    await insertEventsPg(pg, events.map(parsed) as IngestRow[]);
    const minutes = [0, 1, 2, 3].map((d) => d0 + d * DAY_MS);
    for (const m of minutes)
      await pg.$client.unsafe(
        `INSERT INTO requests_1m (minute, requests, input_tokens, cached_tokens, output_tokens) VALUES ($1, 1, 1, 0, 1) ON CONFLICT DO NOTHING`,
        [m],
      );
    // Now: the end of day 3 (detail cutoff exactly at the end of day 1); raw kept 30 h (day 2 straddles, kept whole), detail 2 days, summaries 400 days.
    const now = d0 + 4 * DAY_MS;
    const cutoffs = tierCutoffs(now, { rawHours: 30, days: 2 });
    const r = await sweepRetentionPg(pg, { ...cutoffs, summary: d0 + 2 * DAY_MS }, 2, async () => {});
    expect(await count("worker_stats")).toBe(2);
    expect(await count("tools")).toBe(2);
    expect(await count("requests")).toBe(6);
    expect(r.deleted.requests).toBe(6);
    expect(await count("requests_1m")).toBe(2);
    expect(r.deleted.requests_1m).toBe(2);
    // worker_stats days 0 and 1, tools and the other detail tables' days 0 and 1.
    expect(r.deleted.partitions).toBeGreaterThanOrEqual(4);
    expect((await listPartitions(pg.$client)).some((p) => p.day === dayOf(d0))).toBe(false);
    // 6 requests in batches of 2 and a last empty one: 4 statements for requests alone.
    expect(r.transactions).toBeGreaterThan(4);
    // kvbm_1m and preview_results exist on PostgreSQL since its migration 0010: swept like SQLite's.
    expect(r.deleted).toHaveProperty("kvbm_1m");
    expect(r.deleted).toHaveProperty("preview_results");
  });

  it("the sweep chosen for a PostgreSQL pool never touches the SQLite file it is handed", async () => {
    const refusing = new Proxy(
      {},
      {
        get: () => {
          throw new Error("SQLite read");
        },
      },
    );
    const sweep = retentionSweep(refusing as never, pg);
    await expect(sweep(tierCutoffs(T0, { rawHours: 1, days: 1 }))).resolves.toMatchObject({ deleted: {} });
  });
});
