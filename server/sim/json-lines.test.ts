import { describe, expect, it } from "vitest";
import type { TelemetryEventInput } from "../ingest/events";
import { removedEvent, storedEvent } from "./event-builders";
import { num, quote, toJsonLine } from "./json-lines";
import { RemovedHashes } from "./removed-hashes";
import { buildPrefix } from "./stream";
import type { SimRequest } from "./types";

describe("quote and num: JSON.stringify's text for strings and numbers", () => {
  it.each([
    ["empty", ""],
    ["an id", "r1a2-ks-123"],
    ["a quote", 'a"b'],
    ["a backslash", "a\\b"],
    ["a control character", "a\u0001b\nc"],
    ["DEL is not escaped", "a\u007fb"],
    ["non-ASCII", "é→€"],
    ["a lone surrogate", "a\ud800b"],
  ])("%s", (_name, s) => {
    expect(quote(s)).toBe(JSON.stringify(s));
  });

  it.each([0, -0, 7, 1764400000000, 1.5, -2.25, 1e21, 2 ** 53 + 2, NaN, Infinity, -Infinity])("%d", (n) => {
    expect(num(n)).toBe(JSON.stringify(n));
  });
});

describe("kv events' lines with members that need escaping", () => {
  const { view } = buildPrefix(16, [[11, 64, 0]]);
  const req = { view, sessionId: 's"1\\é' } as unknown as SimRequest;
  const line = (e: object) => {
    (e as { id: string }).id = "id\u0002→";
    return toJsonLine(e as TelemetryEventInput);
  };

  it("a kv.stored line is JSON.stringify of the event (retention class, session and worker id escaped)", () => {
    for (const [from, to] of [
      [0, 4],
      [1, 3],
    ] as const) {
      const e = storedEvent('w"1', req, from, to, 'keep "all" ✓', 5);
      expect(line(e)).toBe(JSON.stringify(e));
    }
  });

  it("a kv.removed line is JSON.stringify of the event", () => {
    const hashes = new RemovedHashes();
    hashes.push(1, 2, null);
    const e = removedEvent("w\\0", hashes, "capacity", 6);
    expect(line(e)).toBe(JSON.stringify(e));
  });
});
