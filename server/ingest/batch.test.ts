import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import {
  decodeBody,
  isIngestMediaType,
  MAX_EVENTS,
  mediaType,
  summarize,
  validateItems,
  type ItemResult,
} from "./batch";
import { minimal, ndjson } from "../../test/events";

const NDJSON = "application/x-ndjson";
const JSON_TYPE = "application/json";

/** Decode, validate and total one body, as ingest does before storing. */
function run(text: string, type: string) {
  return summarize(validateItems(decodeBody(text, type)).results);
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("mediaType / isIngestMediaType", () => {
  it.each([
    ["application/x-ndjson", "application/x-ndjson", true],
    ["application/x-ndjson; charset=utf-8", "application/x-ndjson", true],
    ["Application/JSON; charset=UTF-8", "application/json", true],
    ["application/ndjson", "application/ndjson", true],
    ["application/jsonl", "application/jsonl", true],
    ["application/x-jsonlines", "application/x-jsonlines", true],
    ["text/plain", "text/plain", false],
    ["multipart/form-data; boundary=x", "multipart/form-data", false],
    [null, "", false],
  ])("%j → %j (accepted: %s)", (header, type, accepted) => {
    expect(mediaType(header)).toBe(type);
    expect(isIngestMediaType(mediaType(header))).toBe(accepted);
  });
});

describe("decodeBody + validateItems + summarize", () => {
  const a = minimal["kv.cleared"]({ id: "a" });
  const b = minimal["kv.cleared"]({ id: "b" });
  const c = minimal["kv.cleared"]({ id: "c" });

  it.each<[string, string, string, Omit<ItemResult, "error">[]]>([
    [
      "NDJSON with blank and whitespace-only lines (line numbers are physical lines)",
      `\n${JSON.stringify(a)}\n\n   \n${JSON.stringify(b)}\n\n`,
      NDJSON,
      [
        { index: 0, line: 2, id: "a", status: "accepted" },
        { index: 1, line: 5, id: "b", status: "accepted" },
      ],
    ],
    [
      "NDJSON with CRLF line ends",
      `${JSON.stringify(a)}\r\n${JSON.stringify(b)}\r\n`,
      "application/ndjson",
      [
        { index: 0, line: 1, id: "a", status: "accepted" },
        { index: 1, line: 2, id: "b", status: "accepted" },
      ],
    ],
    [
      "NDJSON with a non-JSON line in the middle",
      `${JSON.stringify(a)}\n{"id":"x", oops\n${JSON.stringify(c)}`,
      NDJSON,
      [
        { index: 0, line: 1, id: "a", status: "accepted" },
        { index: 1, line: 2, id: null, status: "rejected" },
        { index: 2, line: 3, id: "c", status: "accepted" },
      ],
    ],
    [
      "JSON array",
      JSON.stringify([a, b, c]),
      JSON_TYPE,
      [
        { index: 0, id: "a", status: "accepted" },
        { index: 1, id: "b", status: "accepted" },
        { index: 2, id: "c", status: "accepted" },
      ],
    ],
    ["single JSON object", JSON.stringify(a), JSON_TYPE, [{ index: 0, id: "a", status: "accepted" }]],
    ["empty JSON array", "[]", JSON_TYPE, []],
    ["empty NDJSON body", "\n\n", NDJSON, []],
  ])("%s", (_name, text, type, items) => {
    const reply = run(text, type);
    expect(reply.items.map(({ error: _e, ...rest }) => rest)).toEqual(items);
    for (const item of reply.items) expect("line" in item).toBe(type !== JSON_TYPE);
  });

  it("names the line of a non-JSON NDJSON line and accepts the rest", () => {
    const reply = run(`${JSON.stringify(a)}\n\nnot json at all\n${JSON.stringify(b)}\n`, NDJSON);
    expect(reply).toMatchObject({ accepted: 2, duplicate: 0, rejected: 1 });
    expect(reply.items[1]).toEqual({
      index: 1,
      line: 3,
      id: null,
      status: "rejected",
      error: "line 3: not valid JSON",
    });
  });

  it("prefixes NDJSON validation errors with the line and names the field", () => {
    const reply = run(
      `${JSON.stringify(a)}\n${JSON.stringify(minimal["kv.removed"]({ id: "bad", reason: "lru" }))}\n`,
      NDJSON,
    );
    expect(reply.items[1]).toMatchObject({ index: 1, line: 2, id: "bad", status: "rejected" });
    expect(reply.items[1]!.error).toMatch(/^line 2: reason: /);
  });

  it("reports JSON-array validation errors without a line", () => {
    const reply = run(JSON.stringify([a, { id: "bad", kind: "kv.cleared", ts: 5, worker_id: "w1" }, 7]), JSON_TYPE);
    expect(reply).toMatchObject({ accepted: 1, duplicate: 0, rejected: 2 });
    expect(reply.items[1]).toMatchObject({
      index: 1,
      id: "bad",
      status: "rejected",
      error: expect.stringMatching(/^ts: /),
    });
    expect(reply.items[2]).toEqual({ index: 2, id: null, status: "rejected", error: "event must be a JSON object" });
  });

  it.each([
    ["a non-string id", { ...a, id: 42 }, null],
    ["an over-long id (echoed cut to 128 chars)", { ...a, id: "y".repeat(300) }, "y".repeat(128)],
  ])("echoes %s as %j", (_name, value, id) => {
    const reply = run(JSON.stringify([value]), JSON_TYPE);
    expect(reply.items[0]).toMatchObject({ id, status: "rejected" });
  });

  it("returns the valid events with their result slots", () => {
    const { events, slots, results } = validateItems(decodeBody(JSON.stringify([{}, a, "x", b]), JSON_TYPE));
    expect(events.map((e) => e.id)).toEqual(["a", "b"]);
    expect(slots).toEqual([1, 3]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "accepted", "rejected", "accepted"]);
  });
});

describe("summarize", () => {
  it.each<[ItemResult["status"][], [number, number, number]]>([
    [[], [0, 0, 0]],
    [
      ["accepted", "accepted"],
      [2, 0, 0],
    ],
    [
      ["accepted", "duplicate", "rejected", "rejected"],
      [1, 1, 2],
    ],
  ])("%j → accepted/duplicate/rejected %j", (statuses, [accepted, duplicate, rejected]) => {
    const items = statuses.map((status, index): ItemResult => ({ index, id: String(index), status }));
    expect(summarize(items)).toEqual({ accepted, duplicate, rejected, items });
  });

  // Item i of a body: "a" accepted, "d" duplicate, "r" rejected, "u" rejected as unknown_prefix.
  const item = (c: string, index: number): ItemResult =>
    c === "a" || c === "d"
      ? { index, line: index + 1, id: `e${index}`, status: c === "a" ? "accepted" : "duplicate" }
      : c === "u"
        ? { index, line: index + 1, id: `e${index}`, status: "rejected", code: "unknown_prefix", error: "not held" }
        : {
            index,
            line: index + 1,
            id: null,
            status: "rejected",
            error: `line ${index + 1}: event must be a JSON object`,
          };
  const body = (...runs: [string, number][]) => runs.flatMap(([c, n]) => Array<string>(n).fill(c)).map(item);

  it.each<[string, ItemResult[], { rejected: number; listed: number[]; texts: number; truncated?: number }]>([
    ["100 rejected: all listed", body(["r", 100]), { rejected: 100, listed: [100], texts: 100 }],
    ["101 rejected: the last left out", body(["r", 101]), { rejected: 101, listed: [100], texts: 100, truncated: 1 }],
    ["10,000 rejected", body(["r", 10_000]), { rejected: 10_000, listed: [100], texts: 100, truncated: 9_900 }],
    [
      "accepted and duplicate items are all listed, around the errors",
      body(["a", 3], ["r", 150], ["d", 2], ["r", 50], ["a", 1]),
      { rejected: 200, listed: [3, 100, 2, 1], texts: 100, truncated: 100 },
    ],
    [
      "unknown_prefix past the first 100 errors: listed without text",
      body(["r", 100], ["u", 5], ["r", 20], ["u", 1]),
      { rejected: 126, listed: [100, 5, 1], texts: 100, truncated: 20 },
    ],
  ])("%s", (_, results, want) => {
    const reply = summarize(results.map((r) => ({ ...r })));
    expect(reply.rejected).toBe(want.rejected);
    expect(reply.accepted + reply.duplicate + reply.rejected).toBe(results.length);
    expect(reply.items.length).toBe(want.listed.reduce((a, b) => a + b, 0));
    expect(reply.items.filter((i) => i.error !== undefined)).toHaveLength(want.texts);
    expect(reply.errors_truncated).toBe(want.truncated);
    // Listed items keep their index and order; every unknown_prefix index is listed.
    const indexes = reply.items.map((i) => i.index);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(reply.items.filter((i) => i.code === "unknown_prefix").map((i) => i.index)).toEqual(
      results.filter((r) => r.code === "unknown_prefix").map((r) => r.index),
    );
    expect(reply.items.filter((i) => i.status !== "rejected").length).toBe(reply.accepted + reply.duplicate);
  });

  it("bounds the reply to 10,000 {} lines under 20 KB", () => {
    const reply = run(Array<string>(10_000).fill("{}").join("\n"), NDJSON);
    expect(reply).toMatchObject({ accepted: 0, duplicate: 0, rejected: 10_000, errors_truncated: 9_900 });
    expect(JSON.stringify(reply).length).toBeLessThan(20_000);
  });
});

describe("decodeBody refusals", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => minimal["kv.cleared"]({ id: `e${i}` }));

  it.each([
    ["truncated JSON", '[{"id":"a"', JSON_TYPE, "BAD_REQUEST"],
    ["empty JSON body", "", JSON_TYPE, "BAD_REQUEST"],
    ["NDJSON sent as application/json", ndjson(many(2)), JSON_TYPE, "BAD_REQUEST"],
    ["text/plain", ndjson(many(1)), "text/plain", "UNSUPPORTED_MEDIA_TYPE"],
    ["no content type", ndjson(many(1)), "", "UNSUPPORTED_MEDIA_TYPE"],
    ["form data", "a=b", "application/x-www-form-urlencoded", "UNSUPPORTED_MEDIA_TYPE"],
    [`${MAX_EVENTS + 1} events as NDJSON`, ndjson(many(MAX_EVENTS + 1)), NDJSON, "PAYLOAD_TOO_LARGE"],
    [
      `${MAX_EVENTS + 1} non-blank NDJSON lines, some not JSON`,
      ndjson(many(MAX_EVENTS)) + "oops\n",
      NDJSON,
      "PAYLOAD_TOO_LARGE",
    ],
    [`${MAX_EVENTS + 1} events as a JSON array`, JSON.stringify(many(MAX_EVENTS + 1)), JSON_TYPE, "PAYLOAD_TOO_LARGE"],
  ])("%s → AppError %s", (_name, text, type, code) => {
    const err = thrown(() => decodeBody(text, type));
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
  });

  it.each([
    ["NDJSON (blank lines do not count)", ndjson(many(MAX_EVENTS)).replace(/\n/g, "\n\n"), NDJSON],
    ["a JSON array", JSON.stringify(many(MAX_EVENTS)), JSON_TYPE],
  ])(`accepts exactly ${MAX_EVENTS} events as %s`, (_name, text, type) => {
    const reply = run(text, type);
    expect(reply.accepted).toBe(MAX_EVENTS);
    expect(reply.rejected).toBe(0);
  });
});
