import { gzipSync } from "node:zlib";

/** The first half of a gzip'd 300-record Dynamo agent trace (session "cut"): an upload cut off mid-stream. */
export function truncatedTraceUpload() {
  const body = Array.from({ length: 300 }, (_, i) =>
    JSON.stringify({
      event: {
        schema: "dynamo.agent.trace.v1",
        event_type: "request_end",
        event_time_unix_ms: 1_764_400_000_000 + i,
        agent_context: { session_id: "cut" },
        request: { request_id: `cut-${i}`, input_tokens: 1 },
      },
    }),
  ).join("\n");
  const gz = gzipSync(body);
  return gz.subarray(0, gz.length >> 1);
}
