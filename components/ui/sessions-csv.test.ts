import { describe, expect, it } from "vitest";
import type { SessionRow } from "@/db/store/session-list";
import { sessionsCsv } from "./sessions-csv";

const HEADER =
  "session_id,harness,session_type,agents,subagents,turns,input_tokens,cached_tokens,cached_share,cold,diverged,evicted,routed_away,unknown,ttft_p50_ms,tool_calls,tool_wait_ms,duration_ms,first_at,last_at,errors";

const FIRST = Date.UTC(2025, 10, 29, 12, 0, 0, 0);

function row(o: Partial<SessionRow> = {}): SessionRow {
  return {
    sessionId: "s1",
    harness: "claude_code",
    sessionType: "coding",
    firstAt: FIRST,
    lastAt: FIRST + 61_500,
    turns: 12,
    agents: 3,
    subagents: 2,
    inputTokens: 1234567,
    cachedTokens: 1000000,
    outputTokens: 999,
    cachedShare: 0.123456789,
    cold: 11,
    diverged: 22,
    evicted: 33,
    routedAway: 44,
    unknown: 55,
    ttftP50: 123.456,
    toolCalls: 7,
    toolWaitMs: 8900,
    errors: 1,
    duration: 61_500,
    ...o,
  };
}

/** Split CSV text into records of fields (RFC 4180: quoted fields may hold commas, quotes and newlines). */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let rec: string[] = [];
  let f = "";
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) {
      if (c === '"' && text[i + 1] === '"') ((f += '"'), i++);
      else if (c === '"') q = false;
      else f += c;
    } else if (c === '"') q = true;
    else if (c === ",") (rec.push(f), (f = ""));
    else if (c === "\n") (rec.push(f), out.push(rec), (rec = []), (f = ""));
    else f += c;
  }
  if (f !== "" || rec.length) (rec.push(f), out.push(rec));
  return out;
}

describe("sessionsCsv: layout", () => {
  it("writes the header first, in the documented column order, and ends with a newline", () => {
    const text = sessionsCsv([]);
    expect(text).toBe(`${HEADER}\n`);
  });

  it("puts every field of a row under its header, numbers unformatted, instants as ISO", () => {
    const [head, data, ...rest] = parseCsv(sessionsCsv([row()]));
    expect(rest).toEqual([]);
    expect(head).toEqual(HEADER.split(","));
    expect(Object.fromEntries(head!.map((h, i) => [h, data![i]]))).toEqual({
      session_id: "s1",
      harness: "claude_code",
      session_type: "coding",
      agents: "3",
      subagents: "2",
      turns: "12",
      input_tokens: "1234567",
      cached_tokens: "1000000",
      cached_share: "0.123456789",
      cold: "11",
      diverged: "22",
      evicted: "33",
      routed_away: "44",
      unknown: "55",
      ttft_p50_ms: "123.456",
      tool_calls: "7",
      tool_wait_ms: "8900",
      duration_ms: "61500",
      first_at: "2025-11-29T12:00:00.000Z",
      last_at: "2025-11-29T12:01:01.500Z",
      errors: "1",
    });
  });

  it("writes one line per row in the given order", () => {
    const lines = sessionsCsv([row({ sessionId: "b" }), row({ sessionId: "a" }), row({ sessionId: "c" })]).split("\n");
    expect(lines.map((l) => l.split(",")[0])).toEqual(["session_id", "b", "a", "c", ""]);
  });
});

describe("sessionsCsv: values", () => {
  it.each<[string, Partial<SessionRow>, string, string]>([
    ["null harness → empty", { harness: null }, "harness", ""],
    ["null session type → empty", { sessionType: null }, "session_type", ""],
    ["null cached share → empty (not 0, not 'null')", { cachedShare: null }, "cached_share", ""],
    ["null TTFT → empty", { ttftP50: null }, "ttft_p50_ms", ""],
    ["zero stays 0", { errors: 0 }, "errors", "0"],
    ["large counts have no thousands separator", { inputTokens: 12_345_678_901 }, "input_tokens", "12345678901"],
    ["fractions are not rounded", { cachedShare: 1 / 3 }, "cached_share", String(1 / 3)],
  ])("%s", (_name, o, column, expected) => {
    const [head, data] = parseCsv(sessionsCsv([row(o)]));
    expect(data![head!.indexOf(column)]).toBe(expected);
  });

  it.each<[string, string, string]>([
    // [case, session id, the exact cell text expected in the file]
    ["plain", "sess-1", "sess-1"],
    ["a comma is quoted", "a,b", '"a,b"'],
    ["a double quote is doubled and quoted", 'say "hi"', '"say ""hi"""'],
    ["a newline is quoted", "line1\nline2", '"line1\nline2"'],
    ["a carriage return is quoted", "line1\rline2", '"line1\rline2"'],
  ])("session id, %s", (_name, id, cell) => {
    const text = sessionsCsv([row({ sessionId: id })]);
    expect(text.split("\n")[0]).toBe(HEADER);
    expect(text.slice(HEADER.length + 1).startsWith(`${cell},claude_code,`)).toBe(true);
    expect(parseCsv(text)[1]![0]).toBe(id);
    expect(parseCsv(text)).toHaveLength(2);
  });

  // Spreadsheets run a cell that starts with = + - @ (or tab / CR) as a formula; session ids and harness names
  // come from senders, so the export must neutralise them (OWASP: prefix a single quote).
  it.each<[string, string]>([
    ["=", '=HYPERLINK("http://evil","x")'],
    ["+", "+1+1"],
    ["-", "-2+3"],
    ["@", "@SUM(A1:A2)"],
    ["tab", "\t=1+1"],
  ])("a text value starting with %s is neutralised with a leading single quote", (_name, value) => {
    const [head, data] = parseCsv(sessionsCsv([row({ sessionId: value, harness: value })]));
    expect(data![head!.indexOf("session_id")]).toBe(`'${value}`);
    expect(data![head!.indexOf("harness")]).toBe(`'${value}`);
  });

  it("numbers are not prefixed, even negative ones", () => {
    const [head, data] = parseCsv(sessionsCsv([row({ toolWaitMs: -5 })]));
    expect(data![head!.indexOf("tool_wait_ms")]).toBe("-5");
  });
});
