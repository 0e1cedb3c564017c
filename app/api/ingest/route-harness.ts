import Database from "better-sqlite3";
import { afterAll, beforeAll } from "vitest";
import { minimal } from "@/test/events";
import { idKey } from "@/db/queries/ingest-kv-rows";
import { useTempServerEnv } from "@/test/server-env";

// The route tests' shared setup: the ingest route on a temporary database and server settings of its own, a token,
// a poster that remembers the ids it sent (KV rows keep a hash of the id, not its text) and readers of the file.

export const TOKEN = "sy_test_token_0123456789abcdefXY";
const URL_ = "http://localhost/api/ingest";
export const MiB = 1024 * 1024;
export const NDJSON = "application/x-ndjson";

export const auth = (type = NDJSON) => ({ authorization: `Bearer ${TOKEN}`, "content-type": type });
export const events = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => minimal["kv.cleared"]({ id: `${prefix}-${i}` }));

/** Register the route's setup in the calling test file (beforeAll / afterAll) and return its helpers. */
export function ingestRouteHarness() {
  let file = "";
  let restore: () => Promise<void>;
  let POST: typeof import("./route").POST;
  let closeDb: () => void;
  /** Ids of the events posted, by their kv_events key. */
  const posted = new Map<number, string>();

  beforeAll(async () => {
    ({ file, restore } = await useTempServerEnv("switchyard-ingest-route-", TOKEN));
    ({ POST } = await import("./route"));
    const { serverDb } = await import("@/server/runtime");
    closeDb = () => serverDb().$client.close();
  });

  afterAll(async () => {
    closeDb?.();
    await restore();
  });

  /** Read from the database file through a connection of its own (what another process would see). */
  function fresh<T>(fn: (db: Database.Database) => T): T {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  /** Rows across the raw event tables whose id starts with prefix. */
  function storedIds(prefix: string): string[] {
    return fresh((db) =>
      [
        "worker_events",
        "worker_stats",
        "kv_events",
        "route_decisions",
        "requests",
        "tools",
        "reasoning_spans",
        "planner_decisions",
        "policy_acks",
      ]
        .flatMap((t) =>
          t === "kv_events"
            ? (db.prepare("SELECT id_key FROM kv_events").pluck().all() as number[])
                .map((k) => posted.get(k) ?? "")
                .filter((id) => id.startsWith(prefix))
            : (db.prepare(`SELECT id FROM ${t} WHERE id LIKE ?`).pluck().all(`${prefix}%`) as string[]),
        )
        .sort(),
    );
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

  return { file: () => file, fresh, storedIds, post };
}
