import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportSummary } from "@/server/sources/dynamo-trace/import";
import { PG_TEST_URL } from "@/test/pg";
import { truncatedTraceUpload } from "@/test/trace-upload";
import { useTempServerPg } from "@/test/server-env-pg";

// Trace uploads with SWITCHYARD_DATABASE_URL set: the turns and the upload source's status are stored on PostgreSQL,
// as the SQLite suite (route.test.ts) checks them there, and a cut upload keeps what came before it and what was
// stored earlier.

const TOKEN = "sy_test_token_import_pg_0123456789abcd";
const URL_ = "http://localhost:3000/api/import";
const fixture = () => readFile(path.join(process.cwd(), "server/sources/dynamo-trace/fixtures/agent-trace.jsonl"));

describe.skipIf(!PG_TEST_URL)("POST /api/import on PostgreSQL", () => {
  let POST: typeof import("./route").POST;
  let sql: postgres.Sql;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ sql, close } = await useTempServerPg("switchyard-import-pg-", TOKEN));
    ({ POST } = await import("./route"));
    // Importing the route loads the server's modules: slow on a busy machine.
  }, 60_000);
  afterAll(async () => {
    await close?.();
  });

  const post = (body: BodyInit, headers: Record<string, string> = {}, query = "") =>
    POST(
      new Request(URL_ + query, {
        method: "POST",
        body,
        headers: { "x-switchyard-filename": "t.jsonl.gz", authorization: `Bearer ${TOKEN}`, ...headers },
      }),
    );
  const count = async (sessionId: string) =>
    (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM requests WHERE session_id = ${sessionId}`)[0]!.n;

  it("refuses a wrong token and stores nothing", async () => {
    const res = await post(gzipSync(await fixture()), { authorization: "Bearer wrong" });
    expect(res.status).toBe(401);
    expect((await sql`SELECT count(*)::int AS n FROM requests`)[0]!.n).toBe(0);
  });

  it("imports a gzip trace and records the upload source's status", async () => {
    const res = await post(gzipSync(await fixture()));
    expect(res.status).toBe(200);
    const s = (await res.json()) as ImportSummary;
    expect(s).toMatchObject({ name: "t.jsonl.gz", records: 9, accepted: 4, rejected: 1, badLines: 3, fatal: null });
    expect(await count("dyn-s1")).toBe(2);
    const status = await sql`SELECT kind, events_total::int AS events FROM source_status WHERE id = 'trace-upload'`;
    expect([...status]).toEqual([{ kind: "trace-upload", events: 4 }]);
  });

  it("says a truncated upload ended early, keeps its records and leaves the earlier upload's rows", async () => {
    const res = await post(truncatedTraceUpload());
    const s = (await res.json()) as ImportSummary;
    expect(s.fatal).toMatch(/ends early/);
    expect(await count("cut")).toBe(s.records);
    expect(await count("dyn-s1")).toBe(2);
  });

  it("imports a Mooncake trace; a bad line refuses the file whole", async () => {
    const good = '{"timestamp": 0, "input_length": 1024, "output_length": 8, "hash_ids": [1, 2]}';
    const ok = await post(`${good}\n${good}\n`, { "x-switchyard-filename": "mc.jsonl" }, "?format=mooncake");
    expect((await ok.json()) as ImportSummary).toMatchObject({ records: 2, accepted: 2, fatal: null });
    const before = (await sql`SELECT count(*)::int AS n FROM requests`)[0]!.n;
    const bad = await post(
      `${good}\n{"timestamp": "x"}\n`,
      { "x-switchyard-filename": "mc-bad.jsonl" },
      "?format=mooncake",
    );
    expect(((await bad.json()) as ImportSummary).fatal).toMatch(/^mc-bad\.jsonl:2: /);
    expect((await sql`SELECT count(*)::int AS n FROM requests`)[0]!.n).toBe(before);
  });
});
