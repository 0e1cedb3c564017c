import Database from "better-sqlite3";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { minimal } from "@/test/events";
import { idKey } from "@/db/ingest/kv-rows";
import { freshPg, PG_TEST_URL } from "@/test/pg";
import { useTempServerEnv } from "@/test/server-env";

// The route tests' shared setup: the ingest route on a temporary database of the chosen engine (a SQLite file, or a
// fresh database on the PostgreSQL test server through SWITCHYARD_DATABASE_URL) and server settings of its own, a
// token, a poster that remembers the ids it sent (KV rows keep a hash of the id, not its text) and readers of the
// stored rows.

export const TOKEN = "sy_test_token_0123456789abcdefXY";
const URL_ = "http://localhost/api/ingest";
export const MiB = 1024 * 1024;
export const NDJSON = "application/x-ndjson";

export const auth = (type = NDJSON) => ({ authorization: `Bearer ${TOKEN}`, "content-type": type });
export const events = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => minimal["kv.cleared"]({ id: `${prefix}-${i}` }));

export type RouteEngine = "SQLite" | "PostgreSQL";

/** The raw event tables (every event kind's rows), to find what a test stored. */
const EVENT_TABLES = [
  "worker_events",
  "worker_stats",
  "kv_events",
  "route_decisions",
  "requests",
  "tools",
  "reasoning_spans",
  "planner_decisions",
  "policy_acks",
];

export type RouteHarness = ReturnType<typeof ingestRouteHarness>;

/** True when the engine's suites cannot run here (PostgreSQL without SWITCHYARD_TEST_DATABASE_URL). */
export const engineSkipped = (engine: RouteEngine) => engine === "PostgreSQL" && !PG_TEST_URL;

/** Register the route's setup in the calling test file (beforeAll / afterAll) and return its helpers. */
export function ingestRouteHarness(engine: RouteEngine = "SQLite") {
  let file = "";
  let restore: () => Promise<void>;
  let POST: typeof import("./route").POST;
  let close: () => Promise<void>;
  let pgSql: postgres.Sql | null = null;
  /** Ids of the events posted, by their kv_events key. */
  const posted = new Map<number, string>();

  beforeAll(async () => {
    if (engineSkipped(engine)) return;
    ({ file, restore } = await useTempServerEnv("switchyard-ingest-route-", TOKEN));
    let dropPg = async () => {};
    if (engine === "PostgreSQL") {
      const made = await freshPg();
      await made.pg.$client.end({ timeout: 5 });
      process.env.SWITCHYARD_DATABASE_URL = made.url;
      pgSql = postgres(made.url, { max: 1, onnotice: () => {} });
      dropPg = made.drop;
    }
    ({ POST } = await import("./route"));
    const { serverEngine } = await import("@/server/runtime");
    close = async () => {
      await serverEngine().pg?.$client.end({ timeout: 5 });
      await pgSql?.end({ timeout: 5 });
      await dropPg();
      delete process.env.SWITCHYARD_DATABASE_URL;
      // On PostgreSQL the server opened no SQLite file.
      if (engine === "SQLite") serverEngine().db!.$client.close();
    };
  });

  afterAll(async () => {
    await close?.();
    await restore?.();
  });

  /** Read from the SQLite file through a connection of its own (what another process would see). */
  function fresh<T>(fn: (db: Database.Database) => T): T {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  /** Rows across the raw event tables whose id starts with prefix, read through a connection of their own. */
  async function storedIds(prefix: string): Promise<string[]> {
    const kvIds = (keys: number[]) =>
      keys.map((k) => posted.get(Number(k)) ?? "").filter((id) => id.startsWith(prefix));
    if (pgSql) {
      const sql = pgSql;
      const lists = await Promise.all(
        EVENT_TABLES.map(async (t) =>
          t === "kv_events"
            ? kvIds((await sql<{ k: number }[]>`SELECT id_key AS k FROM kv_events`).map((r) => r.k))
            : (await sql.unsafe<{ id: string }[]>(`SELECT id FROM ${t} WHERE id LIKE $1`, [`${prefix}%`])).map(
                (r) => r.id,
              ),
        ),
      );
      return lists.flat().sort();
    }
    return fresh((db) =>
      EVENT_TABLES.flatMap((t) =>
        t === "kv_events"
          ? kvIds(db.prepare("SELECT id_key FROM kv_events").pluck().all() as number[])
          : (db.prepare(`SELECT id FROM ${t} WHERE id LIKE ?`).pluck().all(`${prefix}%`) as string[]),
      ).sort(),
    );
  }

  /** Rows of a query (`?` placeholders; written to run on both engines), read through a connection of its own. */
  async function rows(query: string, ...params: (string | number)[]): Promise<Record<string, unknown>[]> {
    if (pgSql) {
      let n = 0;
      return [
        ...(await pgSql.unsafe(
          query.replaceAll("?", () => `$${++n}`),
          params,
        )),
      ];
    }
    return fresh((db) => db.prepare(query).all(...params) as Record<string, unknown>[]);
  }

  function post(
    body: BodyInit | null,
    headers: Record<string, string>,
    init: Record<string, unknown> = {},
  ): Promise<Response> {
    const text = typeof body === "string" ? body : body instanceof Uint8Array ? Buffer.from(body).toString() : "";
    for (const m of text.matchAll(/"id":"([^"]*)"/g)) posted.set(idKey(m[1]!), m[1]!);
    return POST(new Request(URL_, { method: "POST", body, headers, ...init } as RequestInit));
  }

  return { engine, file: () => file, fresh, storedIds, rows, post };
}
