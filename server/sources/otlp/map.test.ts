import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEvent } from "../../ingest/events";
import { decodeProtobufLogs, encodeProtobufLogs, flattenLogs } from "./decode";
import { DEFAULT_CLUSTER_ATTRIBUTES } from "./cluster-attributes";
import { clusterOf, mapRecord, normalizeTokens, numberOf } from "./map";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8")) as object;
const mapAll = (request: unknown, clusterAttributes: readonly string[] = DEFAULT_CLUSTER_ATTRIBUTES) =>
  flattenLogs(request, 5_000).map((r) => mapRecord(r, clusterAttributes));

describe("normalizeTokens", () => {
  it.each([
    [
      "anthropic: cache reads and writes are added to the prompt",
      "anthropic",
      { input: 120, cacheRead: 18_000, cacheCreation: 2_000 },
      { input_tokens: 20_120, cached_tokens: 18_000 },
    ],
    ["anthropic: no cache fields", "anthropic", { input: 500 }, { input_tokens: 500, cached_tokens: 0 }],
    [
      "anthropic: only cache writes",
      "anthropic",
      { input: 10, cacheCreation: 90 },
      { input_tokens: 100, cached_tokens: 0 },
    ],
    [
      "openai: cached is already inside input",
      "openai",
      { input: 20_000, cached: 18_000 },
      { input_tokens: 20_000, cached_tokens: 18_000 },
    ],
    ["openai: no cached field", "openai", { input: 700 }, { input_tokens: 700, cached_tokens: 0 }],
    [
      "openai: cached above input is capped",
      "openai",
      { input: 100, cached: 150 },
      { input_tokens: 100, cached_tokens: 100 },
    ],
  ] as const)("%s", (_, style, t, want) => {
    expect(normalizeTokens(style, t)).toEqual(want);
  });
});

describe("numberOf: numbers as intValue strings, doubleValue or stringValue", () => {
  it.each([
    [42, 42],
    ["42", 42],
    ["1500.5", 1500.5],
    [" ", undefined],
    ["lots", undefined],
    [true, undefined],
    [null, undefined],
    [undefined, undefined],
  ])("%j → %j", (v, want) => expect(numberOf(v as never)).toBe(want));
});

describe("the cluster of a harness's records", () => {
  type Attr = { key: string; value: { stringValue: string } };
  const withResource = (attributes: Attr[], clusterAttributes?: readonly string[]) => {
    const f = fixture("claude-code.json") as { resourceLogs: { resource: { attributes: unknown[] } }[] };
    f.resourceLogs[0]!.resource.attributes.push(...attributes);
    return mapAll(f, clusterAttributes).flatMap((m) => ("event" in m ? [m.event] : []));
  };
  const attr = (key: string, value: string): Attr => ({ key, value: { stringValue: value } });
  const DEFAULT = DEFAULT_CLUSTER_ATTRIBUTES;

  it.each<[string, readonly string[], Attr[], string | undefined]>([
    ["default list: k8s.cluster.name", DEFAULT, [attr("k8s.cluster.name", "prod-eu")], "prod-eu"],
    [
      "default list: service.namespace when no k8s.cluster.name",
      DEFAULT,
      [attr("service.namespace", "staging")],
      "staging",
    ],
    [
      "default list: k8s.cluster.name before service.namespace",
      DEFAULT,
      [attr("service.namespace", "team-a"), attr("k8s.cluster.name", "prod-us")],
      "prod-us",
    ],
    ["default list, none present: the default cluster (no cluster field)", DEFAULT, [], undefined],
    [
      "custom list: the attribute it names, not the default ones",
      ["deployment.environment"],
      [attr("k8s.cluster.name", "prod-us"), attr("deployment.environment", "prod-eu")],
      "prod-eu",
    ],
    [
      "custom list: an attribute it does not name is not read",
      ["deployment.environment"],
      [attr("k8s.cluster.name", "prod-us")],
      undefined,
    ],
    [
      "custom list: its order, not the default's (service.namespace first)",
      ["service.namespace", "k8s.cluster.name"],
      [attr("k8s.cluster.name", "prod-us"), attr("service.namespace", "team-a")],
      "team-a",
    ],
    [
      "custom list: the next name when the first is absent",
      ["cloud.region", "k8s.cluster.name", "service.namespace"],
      [attr("service.namespace", "team-a"), attr("k8s.cluster.name", "prod-us")],
      "prod-us",
    ],
    [
      "custom list: the next name when the first is empty",
      ["x.cluster", "y.cluster"],
      [attr("x.cluster", ""), attr("y.cluster", "prod-us")],
      "prod-us",
    ],
    [
      "custom list, none present: the default cluster",
      ["x.cluster", "y.cluster"],
      [attr("k8s.cluster.name", "prod-us"), attr("service.namespace", "team-a")],
      undefined,
    ],
    ["empty list: always the default cluster", [], [attr("k8s.cluster.name", "prod-us")], undefined],
  ])("%s", (_name, clusterAttributes, attributes, want) => {
    const events = withResource(attributes, clusterAttributes);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect((e as { cluster?: string }).cluster).toBe(want);
    for (const e of events) expect(parseEvent(e).ok).toBe(true);
  });

  it("clusterOf reads only the record and the list it is given", () => {
    const record = flattenLogs(
      {
        resourceLogs: [
          { resource: { attributes: [attr("a", "one"), attr("b", "two")] }, scopeLogs: [{ logRecords: [{}] }] },
        ],
      },
      10,
    )[0]!;
    expect(clusterOf(record, ["a", "b"])).toBe("one");
    expect(clusterOf(record, ["b", "a"])).toBe("two");
    expect(clusterOf(record, ["c"])).toBeUndefined();
  });

  it("passes a malformed name on, so the event is refused alone with the reason", () => {
    const [event] = withResource([attr("k8s.cluster.name", "prod eu/1")]);
    const r = parseEvent(event);
    expect(r.ok ? "" : r.error).toMatch(/^cluster: must be 1 to 64 letters/);
  });
});

describe("Claude Code OTLP/JSON", () => {
  const mapped = mapAll(fixture("claude-code.json"));

  it("maps api_request to a turn with Anthropic tokens normalized and the harness session id", () => {
    const e = mapped[1]!.event!;
    expect(e).toMatchObject({
      kind: "request",
      session_id: "cc-session-1",
      request_id: "req_011A",
      harness: "claude_code",
      api: "messages",
      model: "claude-sonnet-4-5",
      input_tokens: 20_120,
      cached_tokens: 18_000,
      output_tokens: 300,
      finished_at: 1_764_400_002_000,
      arrived_at: 1_764_400_000_500,
      status: "ok",
    });
    expect(parseEvent(e).ok).toBe(true);
  });

  it("maps tool_result to a tool call with its outcome and span", () => {
    expect(mapped[2]!.event).toMatchObject({
      kind: "tool",
      id: "tool:cc-session-1:toolu_01",
      tool_call_id: "toolu_01",
      name: "Bash",
      status: "error",
      started_at: 1_764_400_002_500,
      ended_at: 1_764_400_005_000,
    });
    expect(parseEvent(mapped[2]!.event).ok).toBe(true);
  });

  it("maps api_error to a failed turn", () => {
    expect(mapped[3]!.event).toMatchObject({
      kind: "request",
      status: "error",
      finish_reason: "http_529",
      input_tokens: 0,
    });
    expect(parseEvent(mapped[3]!.event).ok).toBe(true);
  });

  it("ignores user_prompt and foreign records, and refuses a record without session.id or with huge tokens", () => {
    expect(mapped[0]).toEqual({ index: 0, ignored: true });
    expect(mapped[4]!.error).toBe("claude_code.api_request: session.id is missing");
    expect(mapped[5]!.error).toMatch(/input_tokens: 99999999999999 is out of range/);
    expect(mapped[6]).toEqual({ index: 6, ignored: true });
  });

  it("decodes the same request from protobuf (official proto definitions) to the same events", () => {
    const bytes = encodeProtobufLogs(fixture("claude-code.json"));
    expect(mapAll(decodeProtobufLogs(bytes))).toEqual(mapped);
  });

  it("refuses malformed protobuf", () => {
    expect(() => decodeProtobufLogs(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]))).toThrow();
  });
});

describe("Codex OTLP/JSON", () => {
  const mapped = mapAll(fixture("codex.json"));

  it("maps response.completed to a turn with OpenAI tokens kept (cached included in input) and reasoning", () => {
    expect(mapped[0]).toEqual({ index: 0, ignored: true });
    const e = mapped[1]!.event!;
    expect(e).toMatchObject({
      kind: "request",
      session_id: "cx-conv-1",
      harness: "codex",
      api: "responses",
      input_tokens: 20_000,
      cached_tokens: 18_000,
      output_tokens: 250,
      reasoning_tokens: 64,
    });
    expect(parseEvent(e).ok).toBe(true);
    expect(mapped[2]).toEqual({ index: 2, ignored: true });
  });

  it("maps tool_result and failed API requests", () => {
    expect(mapped[3]!.event).toMatchObject({
      kind: "tool",
      id: "tool:cx-conv-1:call_abc",
      status: "succeeded",
      started_at: 1_764_400_012_800,
    });
    expect(mapped[4]!.event).toMatchObject({ kind: "request", status: "error", finish_reason: "http_429" });
    expect(parseEvent(mapped[4]!.event).ok).toBe(true);
  });

  it("refuses a negative token count with the field named", () => {
    expect(mapped[5]!.error).toMatch(/cached_token_count: -5 is out of range/);
  });
});

describe("flattenLogs", () => {
  it("merges resource and scope attributes under the record's own and refuses non-requests", () => {
    const recs = flattenLogs(fixture("codex.json"), 100);
    expect(recs[0]!.attrs["service.name"]).toBe("codex_cli_rs");
    expect(() => flattenLogs([], 10)).toThrow(/ExportLogsServiceRequest/);
    expect(() => flattenLogs(fixture("codex.json"), 2)).toThrow(/too many log records/);
  });

  it("reads the official example payload without errors (its records are not harness events)", () => {
    const example = JSON.parse(readFileSync(path.join(__dirname, "fixtures", "otlp-logs.example.json"), "utf8"));
    expect(mapAll(example).every((m) => m.ignored)).toBe(true);
  });
});
