import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/sqlite/client";
import { sqliteStore } from "@/db/store/store";
import { traceRows } from "@/db/store/trace";
import { decodeProtobufResponse, encodeProtobufLogs } from "@/server/sources/otlp/decode";
import { submitEvents } from "@/server/ingest/submit";
import { testCaller } from "@/test/db";
import { useTempServerEnv } from "@/test/server-env";

const TOKEN = "sy_test_token_otlp_0123456789abcdef";
const URL_ = "http://localhost/api/otlp/v1/logs";
const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(process.cwd(), "server/sources/otlp/fixtures", name), "utf8")) as object;

let restore: () => Promise<void>;
let POST: typeof import("./route").POST;
let db: Db;

beforeAll(async () => {
  ({ restore } = await useTempServerEnv("switchyard-otlp-route-", TOKEN));
  ({ POST } = await import("./route"));
  db = (await import("@/server/runtime")).serverEngine().db!;
});

afterAll(async () => {
  db?.$client.close();
  await restore();
});

const varint = (n: number): number[] => (n < 128 ? [n] : [(n & 127) | 128, ...varint(Math.floor(n / 128))]);

/** An ExportLogsServiceRequest whose one log record's body is `depth` AnyValue arrays deep (built inside out). */
function nestedProtobuf(depth: number): Uint8Array<ArrayBuffer> {
  const heads: number[][] = [];
  let len = 0;
  for (let i = 0; i < depth; i++) {
    const array = [0x0a, ...varint(len)]; // ArrayValue.values (1)
    len += array.length;
    const any = [0x2a, ...varint(len)]; // AnyValue.array_value (5)
    len += any.length;
    heads.push([...any, ...array]);
  }
  // LogRecord.body (5) in ScopeLogs.log_records (2) in ResourceLogs.scope_logs (2) in resource_logs (1).
  const wrap = (field: number, b: number[]) => [(field << 3) | 2, ...varint(b.length), ...b];
  return new Uint8Array(wrap(1, wrap(2, wrap(2, wrap(5, heads.reverse().flat())))));
}

const post = (body: BodyInit, type: string, auth = `Bearer ${TOKEN}`) =>
  POST(new Request(URL_, { method: "POST", body, headers: { "content-type": type, authorization: auth } }));

describe("POST /api/otlp/v1/logs", () => {
  it("refuses a missing or wrong token and stores nothing", async () => {
    const res = await post(JSON.stringify(fixture("codex.json")), "application/json", "Bearer nope");
    expect(res.status).toBe(401);
    expect(db.$client.prepare("SELECT count(*) FROM requests WHERE session_id = 'cx-conv-1'").pluck().get()).toBe(0);
  });

  it("refuses other media types and undecodable bodies", async () => {
    expect((await post("x", "text/plain")).status).toBe(415);
    expect((await post("{nope", "application/json")).status).toBe(400);
    const bad = await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), "application/x-protobuf");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "body is not a valid protobuf ExportLogsServiceRequest" });
  });

  // The probe's replay: a log record's body nested 100,000 AnyValue arrays deep overflowed the protobuf decoder's
  // stack, and the 400 carried "Maximum call stack size exceeded".
  it("answers a body nested past the decoder's stack with fixed text, and keeps serving", async () => {
    const res = await post(nestedProtobuf(100_000), "application/x-protobuf");
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(/Maximum call stack|RangeError|offset|index out of range/);
    expect(JSON.parse(text)).toEqual({ error: "body is not a valid protobuf ExportLogsServiceRequest" });
    expect((await post(Buffer.from(encodeProtobufLogs({ resourceLogs: [] })), "application/x-protobuf")).status).toBe(
      200,
    );
  });

  it("accepts a real protobuf export, replies with a protobuf partialSuccess naming the refused records", async () => {
    const res = await post(Buffer.from(encodeProtobufLogs(fixture("claude-code.json"))), "application/x-protobuf");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    const reply = decodeProtobufResponse(new Uint8Array(await res.arrayBuffer())) as {
      partialSuccess: { rejectedLogRecords: string; errorMessage: string };
    };
    expect(reply.partialSuccess.rejectedLogRecords).toBe("2");
    expect(reply.partialSuccess.errorMessage).toMatch(/record 4: claude_code.api_request: session.id is missing/);
    expect(reply.partialSuccess.errorMessage).toMatch(/record 5: .*input_tokens/);
    const turns = db.$client
      .prepare(
        "SELECT request_id, input_tokens, cached_tokens, status, harness FROM requests WHERE session_id = 'cc-session-1' ORDER BY arrived_at",
      )
      .all();
    expect(turns).toEqual([
      { request_id: "req_011A", input_tokens: 20_120, cached_tokens: 18_000, status: "ok", harness: "claude_code" },
      expect.objectContaining({ status: "error" }),
    ]);
    const status = db.$client
      .prepare("SELECT kind, name, events_total AS events FROM source_status WHERE id = 'otlp'")
      .get();
    expect(status).toEqual({ kind: "otlp", name: "Harness OTLP logs", events: 3 });
  });

  it("accepts JSON and replies {} when every record is stored (re-sending changes nothing)", async () => {
    const clean = fixture("codex.json") as { resourceLogs: { scopeLogs: { logRecords: unknown[] }[] }[] };
    clean.resourceLogs[0]!.scopeLogs[0]!.logRecords.pop();
    for (let i = 0; i < 2; i++) {
      const res = await post(JSON.stringify(clean), "application/json");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
    }
    expect(db.$client.prepare("SELECT count(*) FROM requests WHERE session_id = 'cx-conv-1'").pluck().get()).toBe(2);
  });

  it("joins harness turns and tools with infrastructure telemetry of the same session in the trace", async () => {
    const infra = {
      id: "infra-1",
      kind: "request",
      ts: 1_764_400_001_900,
      request_id: "dyn-1",
      session_id: "cc-session-1",
      api: "messages",
      model: "claude-sonnet-4-5",
      worker_id: "w3",
      arrived_at: 1_764_400_000_600,
      finished_at: 1_764_400_001_900,
      input_tokens: 20_120,
      cached_tokens: 17_000,
      output_tokens: 300,
      status: "ok",
    };
    expect((await submitEvents(sqliteStore(db), [infra])).accepted).toBe(1);
    const rows = await traceRows(sqliteStore(db), "cc-session-1");
    expect(rows.turns.map((t) => [t.requestId, t.workerId])).toEqual([
      ["req_011A", null],
      ["dyn-1", "w3"],
      [expect.stringContaining("cc-session-1"), null],
    ]);
    expect(rows.tools.map((t) => [t.toolCallId, t.status])).toEqual([["toolu_01", "error"]]);
    expect(rows.harness).toBe("claude_code");
    // In the trace the call both sides reported is one turn: the cluster's, naming the harness's request.
    const trace = await testCaller(db).sessions.byId({ id: "cc-session-1" });
    const turns = trace.lanes.flatMap((l) => l.turns).sort((a, b) => a.arrivedAt - b.arrivedAt);
    expect(turns.map((t) => [t.requestId, t.workerId, t.harnessRequestId])).toEqual([
      ["dyn-1", "w3", "req_011A"],
      [expect.stringContaining("cc-session-1"), null, null],
    ]);
  });
});
