import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { main } from "./cli";
import { Simulation } from "./engine";
import { scenarioByName } from "./scenarios";
import { ofKind, T0 } from "./test-support";
import type { TelemetryEventInput } from "../ingest/events";
import { parseWorkloadTrace } from "./workload-trace";

const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n");

describe("Mooncake-format traces", () => {
  it("parses plain and agentic lines", () => {
    const r = parseWorkloadTrace(
      jsonl([
        { timestamp: 0, input_length: 1_000, output_length: 10, hash_ids: [1, 2] },
        {
          timestamp: 50,
          input_length: 1_200,
          output_length: 5,
          hash_ids: [1, 2, 3],
          session_id: "s1",
          delay: 200,
          request_id: "a",
        },
        {
          timestamp: 60,
          input_length: 100,
          output_length: 5,
          hash_ids: [9],
          request_id: "b",
          wait_for: ["a"],
          tool_wait_ms: 300,
        },
      ]) + "\n\n",
      "t.jsonl",
      512,
    );
    if (!r.ok) throw new Error(r.error);
    expect(
      r.entries.map((e) => [e.line, e.timestamp, e.hashIds.length, e.sessionId, e.delayMs, e.waitFor, e.toolWaitMs]),
    ).toEqual([
      [1, 0, 2, null, null, [], 0],
      [2, 50, 3, "s1", 200, [], 0],
      [3, 60, 1, null, null, ["a"], 300],
    ]);
  });

  it.each([
    {
      name: "a line without hash_ids",
      row: { timestamp: 0, input_length: 10, output_length: 1 },
      want: "t.jsonl:2: hash_ids: is missing",
    },
    {
      name: "a negative input length",
      row: { timestamp: 0, input_length: -1, output_length: 1, hash_ids: [] },
      want: "t.jsonl:2: input_length: must not be negative",
    },
    {
      name: "a negative output length",
      row: { timestamp: 0, input_length: 1, output_length: -4, hash_ids: [1] },
      want: "t.jsonl:2: output_length: must not be negative",
    },
    {
      name: "a negative timestamp",
      row: { timestamp: -5, input_length: 1, output_length: 1, hash_ids: [1] },
      want: "t.jsonl:2: timestamp: must not be negative",
    },
    {
      name: "more ids than the prompt covers",
      row: { timestamp: 0, input_length: 600, output_length: 1, hash_ids: [1, 2, 3] },
      want: "t.jsonl:2: hash_ids: 3 ids cover more",
    },
    {
      name: "a wait for an unknown request",
      row: { timestamp: 0, input_length: 1, output_length: 1, hash_ids: [1], wait_for: "zz" },
      want: 't.jsonl:2: wait_for: "zz" is not an earlier request_id',
    },
  ])("refuses $name with file, line and field", ({ row, want }) => {
    const r = parseWorkloadTrace(
      jsonl([{ timestamp: 0, input_length: 10, output_length: 1, hash_ids: [1] }, row]),
      "t.jsonl",
      512,
    );
    expect(r.ok ? "" : r.error).toContain(want);
  });
});

describe("replaying a trace into the simulated cluster", () => {
  const run = (rows: object[], seconds = 60) => {
    const r = parseWorkloadTrace(jsonl(rows), "t.jsonl", 512);
    if (!r.ok) throw new Error(r.error);
    const sim = new Simulation({
      scenario: scenarioByName("steady")!,
      seed: 1,
      startMs: T0,
      trace: { entries: r.entries, blockSize: 512 },
    });
    const events: TelemetryEventInput[] = [];
    sim.setSink((e) => events.push(e));
    sim.runUntil(T0 + seconds * 1000);
    return ofKind(events, "request").sort((a, b) => a.arrived_at - b.arrived_at);
  };

  it("sends requests at their timestamps, reuses shared hash ids as cached prefix, and plays nothing else", () => {
    const reqs = run([
      { timestamp: 0, input_length: 4_096, output_length: 20, hash_ids: [1, 2, 3, 4, 5, 6, 7, 8] },
      { timestamp: 5_000, input_length: 4_600, output_length: 20, hash_ids: [1, 2, 3, 4, 5, 6, 7, 8, 9] },
      { timestamp: 10_000, input_length: 4_096, output_length: 20, hash_ids: [11, 2, 3, 4, 5, 6, 7, 8] },
    ]);
    expect(reqs.map((r) => r.arrived_at - T0)).toEqual([0, 5_000, 10_000]);
    expect(reqs.map((r) => r.input_tokens)).toEqual([4_096, 4_600, 4_096]);
    expect(reqs[0]!.cached_tokens).toBe(0);
    expect(reqs[1]!.cached_tokens).toBe(4_096);
    expect(reqs[2]!.cached_tokens).toBe(0);
    expect(reqs.map((r) => r.harness)).toEqual(["trace", "trace", "trace"]);
  });

  it("chains a session's turns by delay and agentic requests by wait_for and tool_wait_ms", () => {
    const reqs = run([
      { timestamp: 0, input_length: 1_000, output_length: 50, hash_ids: [1, 2], session_id: "s", request_id: "a" },
      { timestamp: 0, input_length: 1_500, output_length: 50, hash_ids: [1, 2, 3], session_id: "s", delay: 2_000 },
      {
        timestamp: 0,
        input_length: 300,
        output_length: 5,
        hash_ids: [7],
        request_id: "c",
        wait_for: ["a"],
        tool_wait_ms: 700,
      },
    ]);
    const [a, second, c] = [
      reqs[0]!,
      reqs.find((r) => r.input_tokens === 1_500)!,
      reqs.find((r) => r.input_tokens === 300)!,
    ];
    expect(second.arrived_at - a.finished_at!).toBe(2_000);
    expect(c.arrived_at - a.finished_at!).toBe(700);
    expect(second.session_id).toBe(a.session_id);
  });

  it("plays a gzip trace through the command line and refuses a bad one before simulating", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trace-"));
    const good = join(dir, "good.jsonl.gz");
    writeFileSync(
      good,
      gzipSync(
        jsonl([
          { timestamp: 0, input_length: 2_000, output_length: 10, hash_ids: [1, 2, 3, 4] },
          { timestamp: 1_000, input_length: 2_000, output_length: 10, hash_ids: [1, 2, 3, 4] },
        ]),
      ),
    );
    const out = join(dir, "out.ndjson");
    const lines: string[] = [];
    expect(
      await main(["--workload", good, "--fast", "--out", out, "--start", String(T0)], {
        env: {},
        log: (l) => lines.push(l),
      }),
    ).toBe(0);
    expect(lines.join("\n")).toMatch(/2 requests/);
    const bad = join(dir, "bad.jsonl");
    writeFileSync(
      bad,
      jsonl([
        { timestamp: 0, input_length: 10, output_length: 1, hash_ids: [1] },
        { timestamp: 0, input_length: 10, output_length: 1 },
      ]),
    );
    const badOut = join(dir, "bad.ndjson");
    const errors: string[] = [];
    expect(
      await main(["--workload", bad, "--fast", "--out", badOut, "--start", String(T0)], {
        env: {},
        log: (l) => errors.push(l),
      }),
    ).toBe(1);
    expect(errors.join("\n")).toContain(`${bad}:2: hash_ids: is missing`);
    expect(existsSync(badOut)).toBe(false);
  });
});
