import { expect, request as playwrightRequest, test } from "@playwright/test";
import { adminApi } from "../fixtures/auth";
import { INGEST_TOKEN } from "../fixtures/telemetry";

// Issue 32's smaller leaks replayed over HTTP: what /api/health tells a stranger, what an input nested past the
// parser's stack gets back, and how large a reply a body of junk lines can draw.

const INTERNAL = /Maximum call stack|RangeError|SyntaxError|superjson|node_modules|\bat \w+ \(/;

const varint = (n: number): number[] => (n < 128 ? [n] : [(n & 127) | 128, ...varint(Math.floor(n / 128))]);

/** An OTLP logs export whose one record's body is `depth` AnyValue arrays deep (built inside out). */
function nestedProtobuf(depth: number): Buffer {
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
  return Buffer.from(wrap(1, wrap(2, wrap(2, wrap(5, heads.reverse().flat())))));
}

test("GET /api/health tells a stranger only its status; a signed-in caller sees the details", async ({
  baseURL,
  request,
}) => {
  const anon = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await anon.get("/api/health");
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({ status: "ok" });
  await anon.dispose();
  const signedIn = await request.get("/api/health");
  expect(await signedIn.json()).toMatchObject({ status: "ok", database: "ok", engine: expect.any(String) });
});

test("100,000 nested arrays as a tRPC input get 400 'bad request' with no internal text, and the server keeps answering", async ({
  baseURL,
}) => {
  const api = await adminApi(baseURL!);
  const nested = "[".repeat(100_000) + "]".repeat(100_000);
  for (const body of [`{"json":${nested}}`, `{"json":1,"meta":{"values":${nested}}}`]) {
    const res = await api.post("/api/trpc/tokens.revoke", {
      headers: { "content-type": "application/json" },
      data: body,
    });
    const text = await res.text();
    expect(res.status()).toBe(400);
    expect(text).not.toMatch(INTERNAL);
    expect((JSON.parse(text) as { error: { json: { message: string } } }).error.json.message).toBe("bad request");
  }
  expect((await api.get("/api/trpc/tokens.list")).status()).toBe(200);
  await api.dispose();
});

test("an OTLP export nested 100,000 values deep gets fixed text, and the server keeps answering", async ({
  request,
}) => {
  const res = await request.post("/api/otlp/v1/logs", {
    headers: { Authorization: `Bearer ${INGEST_TOKEN}`, "Content-Type": "application/x-protobuf" },
    data: nestedProtobuf(100_000),
  });
  const text = await res.text();
  expect(res.status()).toBe(400);
  expect(text).not.toMatch(INTERNAL);
  expect(JSON.parse(text)).toEqual({ error: "body is not a valid protobuf ExportLogsServiceRequest" });
  expect((await request.get("/api/health")).status()).toBe(200);
});

test("10,000 {} lines to /api/ingest draw a reply under 20 KB with the counts right", async ({ request }) => {
  const res = await request.post("/api/ingest", {
    headers: { Authorization: `Bearer ${INGEST_TOKEN}`, "Content-Type": "application/x-ndjson" },
    data: Array<string>(10_000).fill("{}").join("\n"),
  });
  expect(res.status()).toBe(200);
  const text = await res.text();
  expect(text.length).toBeLessThan(20_000);
  const reply = JSON.parse(text) as { items: { status: string; error?: string }[] };
  expect(reply).toMatchObject({ accepted: 0, duplicate: 0, rejected: 10_000, errors_truncated: 9_900 });
  expect(reply.items).toHaveLength(100);
  expect(reply.items.every((i) => i.status === "rejected" && i.error !== undefined)).toBe(true);
});
