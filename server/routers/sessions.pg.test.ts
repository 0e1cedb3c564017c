import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { causeBuckets, findingInputs } from "../../db/store/causes";
import { sessionChainsOf } from "../../db/store/export";
import { windowRows } from "../../db/store/impact";
import { sessionFacets, sessionsPage, SORTS, type SortKey } from "../../db/store/session-list";
import { decisionOf, traceRows } from "../../db/store/trace";
import type { PageStore } from "../../test/page-stores";
import { POSTGRES_SESSIONS, SQLITE_SESSIONS } from "../../test/session-stores";
import { T0 } from "../../test/events";
import { seedSessions, sessionsCases } from "./sessions.cases";

// The sessions procedures on PostgreSQL: the same cases and figures as on SQLite (sessions.test.ts); then every read
// of both engines over one input, compared row for row.

sessionsCases(POSTGRES_SESSIONS);

describe.skipIf(POSTGRES_SESSIONS.skip)("sessions reads: PostgreSQL's rows are SQLite's on the same events", () => {
  let lite: PageStore;
  let pg: PageStore;
  beforeAll(async () => {
    [lite, pg] = await Promise.all([SQLITE_SESSIONS.seeded(seedSessions()), POSTGRES_SESSIONS.seeded(seedSessions())]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([lite?.close(), pg?.close()]);
  });
  const both = async <T>(read: (p: PageStore) => Promise<T>) => {
    const [a, b] = await Promise.all([read(lite), read(pg)]);
    expect(b).toEqual(a);
    return a;
  };
  const f = { from: T0 - 60_000, to: T0 + 120_000, now: T0 + 120_000 };

  it.each(Object.keys(SORTS).flatMap((k) => [`${k} asc`, `${k} desc`]))("the list sorted by %s", async (key) => {
    const [sort, dir] = key.split(" ") as [SortKey, "asc" | "desc"];
    const first = await both((p) => sessionsPage(p.store, f, sort, dir, 4));
    const last = first[3]!;
    await both((p) => sessionsPage(p.store, f, sort, dir, 4, { v: last.sortValue, id: last.sessionId }));
  });

  it("facets, findings, the causes series and the impact windows", async () => {
    await both((p) => sessionFacets(p.store));
    await both((p) => findingInputs(p.store, f.from, f.to));
    await both((p) => causeBuckets(p.store, f.from, f.to, 60_000));
    await both((p) => windowRows(p.store, { from: f.from, to: f.to }));
  });

  it.each(["sess-0", "sess-5", "S-upper", "nope"])("trace rows, decisions and chains of %s", async (id) => {
    const rows = await both((p) => traceRows(p.store, id));
    for (const t of rows.turns) await both((p) => decisionOf(p.store, t.requestId));
    await both(async (p) => Object.fromEntries(await sessionChainsOf(p.store, id)));
  });
});
