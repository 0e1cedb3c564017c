import { beforeEach, describe, expect, it } from "vitest";
import { useHeldLock } from "../../test/held-lock";
import { insertSession, clearLoginFailures, deleteExpiredAuth, sessionUser } from "./auth";
import { insertToken, insertUser } from "./accounts";
import { appendAudit } from "./control";
import { recordSourceOk } from "./sources";
import { readSetting, writeSetting } from "./trace-import";
import { sqliteStore, type Store } from "./store";

// Operator actions and timer passes that write one thing, on the dashboard's shared SQLite connection (busy timeout
// 250 ms) while another connection (an ingest or attribution thread) holds the write lock longer. Each write is a
// transaction of its own (store.tx), which waits for the lock on the event loop: a bare write waited inside SQLite,
// blocking every request, and failed with "database is locked" after 250 ms.

const T = 1_800_000_000_000;

describe("single writes while another connection holds the write lock past the busy timeout", () => {
  const db = useHeldLock("single-writes-");
  const holdLock = db.holdLock;
  let s: Store;
  beforeEach(() => {
    s = sqliteStore(db.a());
  });

  it.each<[string, (s: Store, user: number) => Promise<unknown>, (s: Store) => Promise<unknown>, unknown]>([
    [
      "a sign-in's session",
      (s, user) => insertSession(s, { id: "sess-1", userId: user, createdAt: T, expiresAt: T + 3_600_000 }),
      async (s) => (await sessionUser(s, "sess-1", T))?.username,
      "ops",
    ],
    [
      "an API token",
      (s, user) =>
        insertToken(s, {
          digest: "d".repeat(64),
          hint: "dddd",
          name: "ci",
          scope: "ingest",
          createdBy: "ops",
          createdAt: T,
        }),
      async (s) => (await s.db.select().from(s.t.apiTokens)).map((r) => r.name),
      ["ci"],
    ],
    [
      "an audit entry",
      (s) => appendAudit(s, T, { actor: "ops", action: "publish", kind: "routing", version: 3 }),
      async (s) => (await s.db.select().from(s.t.controlAudit)).map((r) => [r.actor, r.version]),
      [["ops", 3]],
    ],
    [
      "a source's scrape status",
      (s) => recordSourceOk(s, { id: "src-1", kind: "prometheus", name: "vllm" }, T, { events: 12 }),
      async (s) => (await s.db.select().from(s.t.sourceStatus)).map((r) => [r.id, r.eventsTotal]),
      [["src-1", 12]],
    ],
    ["a setting", (s) => writeSetting(s, "trace.import", "on", T), (s) => readSetting(s, "trace.import"), "on"],
    [
      "housekeeping (expired sessions, failures)",
      async (s) => {
        await deleteExpiredAuth(s, T);
        await clearLoginFailures(s, "user:ops");
      },
      async (s) => (await s.db.select().from(s.t.loginFailures)).length,
      0,
    ],
  ])("%s is stored", async (_, write, read, want) => {
    const user = await insertUser(s, { username: "ops", role: "admin", passwordHash: null }, T);
    holdLock();
    await write(s, user);
    expect(db.b().$client.inTransaction).toBe(false);
    expect(await read(s)).toEqual(want);
  });
});
