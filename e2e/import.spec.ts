import { gzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { encodeProtobufLogs } from "../server/sources/otlp/decode";
import { INGEST_TOKEN, uniq } from "./fixtures/telemetry";

/** A gzip dynamo.agent.trace.v1 file: `turns` turns of one session on two workers, tool calls between, one bad line. */
function agentTrace(session: string, turns: number): Buffer {
  const t0 = Date.now() - 10 * 60_000;
  const lines: string[] = [];
  for (let i = 0; i < turns; i++) {
    const at = t0 + i * 4_000;
    const hashes = Array.from({ length: i + 2 }, (_, k) => `${14879255164371896291n - BigInt(k)}`).join(",");
    lines.push(
      `{"timestamp":${i},"event":{"schema":"dynamo.agent.trace.v1","event_type":"request_end","event_time_unix_ms":${at + 1_500},"event_source":"dynamo",` +
        `"agent_context":{"session_type_id":"coding","session_id":"${session}","trajectory_id":"${session}:main"},` +
        `"request":{"request_id":"${session}-r${i}","model":"qwen3-coder","input_tokens":${4_000 + i * 500},"cached_tokens":${i === 0 ? 0 : 3_500 + i * 400},"output_tokens":200,` +
        `"request_received_ms":${at},"ttft_ms":120,"total_time_ms":1500,"worker":{"decode_worker_id":${i % 2 ? 7 : 3}},` +
        `"finish_reason_metadata":{"finish_reason":"tool_calls","tool_calls":[{"id":"${session}-c${i}","name":"bash"}]},` +
        `"replay":{"trace_block_size":64,"input_length":${4_000 + i * 500},"input_sequence_hashes":[${hashes}]}}}}`,
    );
    lines.push(
      JSON.stringify({
        event: {
          schema: "dynamo.agent.trace.v1",
          event_type: "tool_end",
          event_time_unix_ms: at + 3_000,
          agent_context: { session_id: session, trajectory_id: `${session}:main` },
          tool: {
            tool_call_id: `${session}-c${i}`,
            tool_class: "bash",
            status: "succeeded",
            started_at_unix_ms: at + 1_600,
            ended_at_unix_ms: at + 3_000,
          },
        },
      }),
    );
  }
  lines.splice(3, 0, "this line is not JSON");
  return gzipSync(lines.join("\n"));
}

test("upload a gzip agent trace on the Sources page, read the summary, and find the session", async ({
  page,
}, testInfo) => {
  const session = uniq("e2e-import");
  // The same file twice: its events carry the same ids and times (a worker sample, decision, tool call or reasoning
  // span is a duplicate by id and time together, as a KV event is).
  const trace = agentTrace(session, 12);
  await page.goto("/sources");
  const card = page.getByRole("region", { name: "Import trace files" });
  await expect(card).toBeVisible();
  await card
    .getByLabel("Trace files")
    .setInputFiles({ name: `${session}.jsonl.gz`, mimeType: "application/gzip", buffer: trace });
  await card.getByRole("button", { name: "Import" }).click();

  const item = card.getByRole("list", { name: "Trace imports" }).getByRole("listitem", { name: `${session}.jsonl.gz` });
  await expect(item.getByRole("status")).toContainText("Imported: 25 records, 24 accepted, 0 rejected, 1 bad lines");
  await item.getByText("Show the problem").click();
  await expect(item.getByText("Line 4: not valid JSON")).toBeVisible();

  await card
    .getByLabel("Trace files")
    .setInputFiles({ name: "again.jsonl.gz", mimeType: "application/gzip", buffer: trace });
  await card.getByRole("button", { name: "Import" }).click();
  await expect(card.getByRole("listitem", { name: "again.jsonl.gz" }).getByRole("status")).toContainText(
    "0 accepted, 24 already imported",
  );
  await card.screenshot({ path: testInfo.outputPath("trace-upload.png") });

  await page.goto("/sessions?range=1h");
  await page.getByRole("searchbox", { name: "Session id" }).fill(session);
  await page.getByRole("table", { name: "Sessions" }).getByRole("link", { name: session }).click();
  await expect(page.getByRole("heading", { name: `Session ${session}`, level: 1 })).toBeVisible();
  await expect(page.getByRole("table", { name: "Turns" }).getByRole("row")).toHaveCount(13);
});

test("a truncated gzip upload says where it broke and keeps what came before", async ({ page }) => {
  const session = uniq("e2e-cut");
  const whole = agentTrace(session, 200);
  await page.goto("/sources");
  const card = page.getByRole("region", { name: "Import trace files" });
  await card.getByLabel("Trace files").setInputFiles({
    name: "cut.jsonl.gz",
    mimeType: "application/gzip",
    buffer: whole.subarray(0, whole.length >> 1),
  });
  await card.getByRole("button", { name: "Import" }).click();
  const item = card.getByRole("listitem", { name: "cut.jsonl.gz" });
  await expect(item.getByRole("status")).toContainText("Import incomplete");
  await expect(item).toContainText("gzip data ends early (truncated file)");
});

test("Claude Code OTLP logs in protobuf become a session with its turns and tools", async ({ page, request }) => {
  const session = uniq("e2e-otlp");
  const t = Date.now() - 5 * 60_000;
  const attr = (key: string, value: string | number) => ({
    key,
    value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value },
  });
  const record = (at: number, name: string, attrs: ReturnType<typeof attr>[]) => ({
    timeUnixNano: `${at}000000`,
    body: { stringValue: `claude_code.${name}` },
    attributes: [attr("event.name", name), attr("session.id", session), ...attrs],
  });
  const logRecords = [
    record(t + 2_000, "api_request", [
      attr("request_id", `${session}-1`),
      attr("model", "claude-sonnet-4-5"),
      attr("duration_ms", 1_800),
      attr("input_tokens", 200),
      attr("cache_read_tokens", 15_000),
      attr("cache_creation_tokens", 800),
      attr("output_tokens", 150),
    ]),
    record(t + 4_000, "tool_result", [
      attr("tool_name", "Bash"),
      attr("tool_use_id", `${session}-toolu`),
      attr("success", "true"),
      attr("duration_ms", 1_500),
    ]),
    record(t + 7_000, "api_request", [
      attr("request_id", `${session}-2`),
      attr("model", "claude-sonnet-4-5"),
      attr("duration_ms", 2_500),
      attr("input_tokens", 300),
      attr("cache_read_tokens", 16_000),
      attr("output_tokens", 90),
    ]),
  ];
  const body = encodeProtobufLogs({
    resourceLogs: [{ resource: { attributes: [attr("service.name", "claude-code")] }, scopeLogs: [{ logRecords }] }],
  });
  const res = await request.post("/api/otlp/v1/logs", {
    headers: { Authorization: `Bearer ${INGEST_TOKEN}`, "Content-Type": "application/x-protobuf" },
    data: Buffer.from(body),
  });
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toBe("application/x-protobuf");

  await page.goto("/sessions?range=1h");
  await page.getByRole("searchbox", { name: "Session id" }).fill(session);
  await page.getByRole("table", { name: "Sessions" }).getByRole("link", { name: session }).click();
  await expect(page.getByRole("heading", { name: `Session ${session}`, level: 1 })).toBeVisible();
  await expect(page.getByRole("table", { name: "Turns" }).getByRole("row")).toHaveCount(3);
  await expect(page.getByRole("table", { name: "Turns" })).toContainText("16,000");
});
