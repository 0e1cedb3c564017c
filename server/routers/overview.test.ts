import { describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { insertEvents } from "../../db/sqlite/ingest";
import { testCaller, testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import { SQLITE_PAGES } from "../../test/page-stores";
import { overviewFleetCases } from "./overview-fleet.cases";
import { overviewCases } from "./overview.cases";

// overview.summary on SQLite (the same cases run on PostgreSQL in overview.pg.test.ts), and attribution's lag, which
// only SQLite has so far.

overviewCases(SQLITE_PAGES);
overviewFleetCases(SQLITE_PAGES);

const FIXED_NOW = T0 + 3_600_000;
const store = (db: Db, raws: Raw[]) => insertEvents(db, raws.map(parsed));

describe("overview.summary attribution lag", () => {
  it("reports when the oldest unattributed request was stored (its event time, not its arrival), then caught up once the job ran", async () => {
    const { runAttribution } = await import("../jobs/attribution");
    const db = testDb();
    store(db, [
      minimal.request({ id: "lag-1", request_id: "lag-1", ts: FIXED_NOW - 60_000, arrived_at: FIXED_NOW - 240_000 }),
      minimal.request({ id: "lag-2", request_id: "lag-2", ts: FIXED_NOW - 30_000, arrived_at: FIXED_NOW - 90_000 }),
    ]);
    const caller = testCaller(db, () => FIXED_NOW);
    expect((await caller.overview.summary({ preset: "15m" })).attribution).toEqual({
      caughtUp: false,
      behindMs: 60_000,
      oldestPendingAt: FIXED_NOW - 60_000,
    });
    runAttribution(db);
    expect((await caller.overview.summary({ preset: "15m" })).attribution).toEqual({
      caughtUp: true,
      behindMs: 0,
      oldestPendingAt: null,
    });
  });
});
