import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeProtobufLogs } from "@/server/sources/otlp/decode";
import { PG_TEST_URL } from "@/test/pg";
import { useTempServerPg } from "@/test/server-env-pg";

// OTLP logs with SWITCHYARD_DATABASE_URL set: the turns and the source's status are stored on PostgreSQL, as the
// SQLite suite (route.test.ts) checks them there.

const TOKEN = "sy_test_token_otlp_pg_0123456789abcdef";
const URL_ = "http://localhost/api/otlp/v1/logs";
const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(process.cwd(), "server/sources/otlp/fixtures", name), "utf8")) as object;

describe.skipIf(!PG_TEST_URL)("POST /api/otlp/v1/logs on PostgreSQL", () => {
  let POST: typeof import("./route").POST;
  let sql: postgres.Sql;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ sql, close } = await useTempServerPg("switchyard-otlp-pg-", TOKEN));
    ({ POST } = await import("./route"));
  });
  afterAll(async () => {
    await close?.();
  });

  const post = (body: BodyInit, type: string) =>
    POST(
      new Request(URL_, { method: "POST", body, headers: { "content-type": type, authorization: `Bearer ${TOKEN}` } }),
    );

  it("stores a protobuf export's turns and the source's status; re-sending stores nothing twice", async () => {
    const body = Buffer.from(encodeProtobufLogs(fixture("claude-code.json")));
    for (let i = 0; i < 2; i++) expect((await post(body, "application/x-protobuf")).status).toBe(200);
    const turns = await sql`SELECT request_id, input_tokens, cached_tokens, status, harness FROM requests
      WHERE session_id = 'cc-session-1' ORDER BY arrived_at`;
    expect([...turns]).toEqual([
      { request_id: "req_011A", input_tokens: 20_120, cached_tokens: 18_000, status: "ok", harness: "claude_code" },
      expect.objectContaining({ status: "error" }),
    ]);
    const status = await sql`SELECT kind, name, events_total::int AS events, success_count AS n,
      detail::json->>'rejected' AS rejected FROM source_status WHERE id = 'otlp'`;
    // Records already stored count as delivered (receiveLogs: accepted + duplicate), as on SQLite.
    expect([...status]).toEqual([{ kind: "otlp", name: "Harness OTLP logs", events: 6, n: 2, rejected: "2" }]);
  });

  it("refuses a wrong token before touching PostgreSQL", async () => {
    const res = await POST(
      new Request(URL_, {
        method: "POST",
        body: JSON.stringify(fixture("codex.json")),
        headers: { "content-type": "application/json", authorization: "Bearer nope" },
      }),
    );
    expect(res.status).toBe(401);
    expect([...(await sql`SELECT count(*)::int AS n FROM requests WHERE session_id = 'cx-conv-1'`)]).toEqual([
      { n: 0 },
    ]);
  });
});
