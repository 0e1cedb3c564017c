import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { insertEventsPg } from "../../db/pg/ingest";
import { insertEvents } from "../../db/sqlite/ingest";
import type { IngestRow } from "../../db/rows/ingest";
import { pgStore, type Store } from "../../db/store/store";
import { testDb } from "../../test/db";
import { freshPg, PG_TEST_URL } from "../../test/pg";
import { PRESSURE_RETENTION_CANDIDATE } from "../../test/preview-candidates";
import { recordedEvents } from "../routers/previews.cases";
import { forgetBaselines } from "./baseline-cache";
import { computePreview } from "./compute";
import { loadWindow } from "./load";
import { noTime, request, START, WINDOW } from "./test-support";
import { threadRunner } from "./thread-runner";
import { pgWindow, sqliteWindow } from "./window-source";

// The recorded window read from PostgreSQL is the one read from SQLite, turn for turn and chain for chain, when both
// engines' own ingest stored the same events; so a preview answers the same on either, inline or in a preview thread
// with its own PostgreSQL connection.

describe.skipIf(!PG_TEST_URL)("the preview's window on PostgreSQL", () => {
  let db: Db;
  let store: Store;
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const events = recordedEvents();
    db = testDb();
    for (let i = 0; i < events.length; i += 2000) insertEvents(db, events.slice(i, i + 2000));
    const fresh = await freshPg();
    ({ url, drop } = fresh);
    store = pgStore(fresh.pg);
    for (let i = 0; i < events.length; i += 2000)
      await insertEventsPg(fresh.pg, events.slice(i, i + 2000) as IngestRow[]);
  }, 120_000);
  afterAll(async () => {
    db?.$client.close();
    await drop?.();
  });

  it("reads the same turns, chains, workers, continuing trajectories and chain starts as SQLite", async () => {
    const [fromSqlite, fromPg] = await Promise.all([
      loadWindow(sqliteWindow(db), WINDOW.from, WINDOW.to, { baseline: START }),
      loadWindow(pgWindow(store), WINDOW.from, WINDOW.to, { baseline: START }),
    ]);
    expect(fromPg.turns.length).toBeGreaterThan(20);
    expect(fromPg.turns.filter((t) => t.blocks !== null && t.blocks.length > 2).length).toBeGreaterThan(10);
    expect(fromPg.firstRuns.length).toBeGreaterThan(0);
    const plain = (t: (typeof fromPg.turns)[number]) => ({ ...t, blocks: t.blocks && [...t.blocks] });
    expect(fromPg.turns.map(plain)).toEqual(fromSqlite.turns.map(plain));
    expect({ ...fromPg, turns: [] }).toEqual({ ...fromSqlite, turns: [] });
  });

  it.each([
    ["a window with no traffic", WINDOW.to + 3_600_000, WINDOW.to + 3_660_000],
    ["a window before the recording", WINDOW.from - 3_600_000, WINDOW.from - 3_540_000],
  ])("refuses %s as SQLite does", async (_name, from, to) => {
    await expect(loadWindow(pgWindow(store), from, to)).rejects.toThrow(/no recorded traffic/);
    await expect(loadWindow(sqliteWindow(db), from, to)).rejects.toThrow(/no recorded traffic/);
  });

  it("previews the same inline and in a preview thread over its own PostgreSQL connection", async () => {
    forgetBaselines();
    const want = noTime(await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE)));
    forgetBaselines();
    expect(noTime(await computePreview(store, request(PRESSURE_RETENTION_CANDIDATE)))).toEqual(want);
    const run = threadRunner("", { databaseUrl: url, minHelpedTurns: 0 });
    for (const helper of [true, false]) {
      let helped = 0;
      const job = run(request(PRESSURE_RETENTION_CANDIDATE), () => undefined, { helper, helperDone: () => helped++ });
      expect(noTime(await job.done)).toEqual(want);
      await expect.poll(() => helped, { timeout: 10_000 }).toBe(helper ? 1 : 0);
    }
  }, 120_000);
});
