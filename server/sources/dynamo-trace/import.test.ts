import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { parseEvent } from "../../ingest/events";
import { traceLines } from "./lines";
import { createTraceMapper, eventId, rawSequenceHashes } from "./map";
import { SQLITE_SINK } from "../sink.cases";
import { importCases } from "./import.cases";

const read = (name: string) => readFileSync(path.join(__dirname, "fixtures", name));

async function* chunks(bytes: Uint8Array, size = 97) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe("traceLines", () => {
  it("reads plain and gzip JSONL alike, numbering lines and bounding their length", async () => {
    const text = '{"a":1}\n\n{"b":"é"}\n' + "x".repeat(50) + '\n{"c":3}';
    for (const bytes of [
      Buffer.from(text),
      gzipSync(text),
      Buffer.concat([gzipSync('{"a":1}\n\n'), gzipSync('{"b":"é"}\n' + "x".repeat(50) + '\n{"c":3}')]),
    ]) {
      const out = [];
      for await (const l of traceLines(chunks(bytes, 7), 20)) out.push(l);
      expect(out).toEqual([
        { line: 1, text: '{"a":1}' },
        { line: 3, text: '{"b":"é"}' },
        { line: 4, tooLong: true },
        { line: 5, text: '{"c":3}' },
      ]);
    }
  });
});

describe("rawSequenceHashes and eventId", () => {
  it("keeps u64 hashes exactly (JSON.parse would round them)", () => {
    expect(
      rawSequenceHashes('{"input_sequence_hashes":[14879255164371896291, 274632075616497421,"18446744073709551615"]}'),
    ).toEqual(["14879255164371896291", "274632075616497421", "18446744073709551615"]);
    expect(rawSequenceHashes('{"input_sequence_hashes":[]}')).toEqual([]);
    expect(rawSequenceHashes("{}")).toBeUndefined();
  });

  it("bounds ids at 128 characters and keeps long ones distinct", () => {
    const a = eventId("x", "a".repeat(200));
    const b = eventId("x", "a".repeat(199) + "b");
    expect(a.length).toBe(128);
    expect(a).not.toBe(b);
    expect(eventId("dyn-req", "cmpl-1")).toBe("dyn-req:cmpl-1");
  });
});

describe("agent trace mapping", () => {
  const mapper = createTraceMapper();
  const lines = read("agent-trace.jsonl").toString("utf8").split("\n");
  const out = lines.map((text, i) => (text.trim() ? mapper.push(text, i + 1) : null));

  it("maps request_end to a turn with worker, timing, sequence hashes and the session/trajectory ids", () => {
    const e = out[0]!.events[0]!;
    expect(e).toMatchObject({
      id: "dyn-req:cmpl-1",
      kind: "request",
      request_id: "cmpl-1",
      session_id: "dyn-s1",
      trajectory_id: "dyn-s1:main",
      session_type: "coding",
      worker_id: "7",
      arrived_at: 1_764_400_000_000,
      first_token_at: 1_764_400_000_082,
      finished_at: 1_764_400_001_000,
      input_tokens: 4096,
      cached_tokens: 3584,
      output_tokens: 512,
      finish_reason: "tool_calls",
      block_size: 64,
      sequence_hashes: ["14879255164371896291", "274632075616497421"],
    });
    expect(parseEvent(e).ok).toBe(true);
  });

  it("joins tool_start and tool_end into one span linked to the turn that called it", () => {
    expect(out[1]!.events).toEqual([]);
    const tool = out[3]!.events[0]!;
    expect(tool).toMatchObject({
      id: "tool:dyn-s1:call-1",
      kind: "tool",
      request_id: "cmpl-1",
      name: "bash",
      started_at: 1_764_400_001_100,
      ended_at: 1_764_400_003_000,
      status: "succeeded",
      output_tokens: 96,
      output_bytes: 2048,
      dispatched_at: 1_764_400_001_000,
    });
    expect(parseEvent(tool).ok).toBe(true);
  });

  it("names the fault of bad lines and keeps going", () => {
    expect(out[2]!.error).toBe("not valid JSON");
    expect(out[4]!.error).toBe("request.request_id is missing");
    expect(out[9]!.error).toMatch(/unknown schema "some.other.v9"/);
  });

  it("maps tool_error with a timeout to a cancelled span and reads token counts given as strings", () => {
    expect(out[7]!.events[0]).toMatchObject({
      status: "cancelled",
      started_at: 1_764_400_005_500,
      ended_at: 1_764_400_006_000,
    });
    expect(out[8]!.events[0]).toMatchObject({
      output_tokens: 40,
      input_tokens: 4200,
      sequence_hashes: ["14879255164371896291", "274632075616497421", "18446744073709551615"],
    });
  });

  it.each([
    [{ decode_worker_id: 7, decode_dp_rank: 2, prefill_worker_id: 1 }, "7-dp2"],
    [{ decode_worker_id: "7", decode_dp_rank: 0 }, "7"],
    [{ prefill_worker_id: 1, prefill_dp_rank: 1 }, "1-dp1"],
    [{}, undefined],
  ])("names the serving worker %j as %j (the FPM trace names its workers the same way)", (worker, want) => {
    const m = createTraceMapper();
    const rec = {
      event: {
        schema: "dynamo.agent.trace.v1",
        event_type: "request_end",
        event_time_unix_ms: 1_764_400_000_000,
        request: { request_id: "r", worker },
      },
    };
    expect((m.push(JSON.stringify(rec), 1).events[0] as { worker_id?: string }).worker_id).toBe(want);
  });

  it("passes huge values on for validation to refuse (they are not clipped into plausible ones)", () => {
    const huge = out[6]!.events[0]!;
    expect(parseEvent(huge)).toEqual({ ok: false, error: expect.stringMatching(/^input_tokens/) });
  });

  it("does not infer tool spans for a session whose harness reported its tools", () => {
    expect(mapper.finish()).toEqual([]);
  });

  it("infers a tool span from request_end tool_calls up to the next turn when no harness tool records exist", () => {
    const m = createTraceMapper();
    const rec = (t: number, id: string, calls: string[]) =>
      JSON.stringify({
        event: {
          schema: "dynamo.agent.trace.v1",
          event_type: "request_end",
          event_time_unix_ms: t,
          agent_context: { session_id: "s", trajectory_id: "s:1" },
          request: {
            request_id: id,
            request_received_ms: t - 100,
            finish_reason_metadata: {
              finish_reason: "tool_calls",
              tool_calls: calls.map((c) => ({ id: c, name: "grep" })),
            },
          },
        },
      });
    m.push(rec(1_764_400_000_000, "r1", ["c1"]), 1);
    m.push(rec(1_764_400_003_000, "r2", ["c2"]), 2);
    expect(m.finish()).toEqual([
      expect.objectContaining({
        tool_call_id: "c1",
        request_id: "r1",
        started_at: 1_764_400_000_000,
        ended_at: 1_764_400_002_900,
        status: "succeeded",
      }),
      expect.objectContaining({ tool_call_id: "c2", status: "running" }),
    ]);
  });
});

importCases(SQLITE_SINK);
