import { describe, expect, it } from "vitest";
import { parsed, minimal, T0 } from "../../test/events";
import type { EventOf } from "./events";
import type { NamedRequest } from "../../db/rows/ingest";
import { resolvePrefix } from "./prefix";

const held: NamedRequest = {
  rowId: "row-a",
  sessionId: "s1",
  source: "sim",
  arrivedAt: T0,
  seqCount: 10,
  localCount: 10,
};
const request = (o: Record<string, unknown> = {}) =>
  parsed(
    minimal.request({
      request_id: "b",
      session_id: "s1",
      source: "sim",
      arrived_at: T0 + 5,
      prefix_of: { request_id: "a", blocks: 8 },
      sequence_hashes: ["1"],
      local_hashes: ["2"],
      ...o,
    }),
  ) as EventOf<"request">;

describe("resolvePrefix", () => {
  it("extends the named request by its first `blocks` hashes", () => {
    expect(resolvePrefix(request(), held, false)).toEqual({ ok: true, base: "row-a", shared: 8, localShared: 8 });
  });

  it("shares no local hashes when the request carries none", () => {
    expect(resolvePrefix(request({ local_hashes: undefined }), { ...held, localCount: null }, false)).toEqual({
      ok: true,
      base: "row-a",
      shared: 8,
      localShared: 0,
    });
  });

  it("takes all of the named chain (blocks equal to its length)", () => {
    expect(resolvePrefix(request({ prefix_of: { request_id: "a", blocks: 10 } }), held, false)).toMatchObject({
      ok: true,
      shared: 10,
    });
  });

  const cases: [string, EventOf<"request">, NamedRequest | null, boolean, string, RegExp][] = [
    ["the named request is not held", request(), null, false, "unknown_prefix", /no such request is held/],
    [
      "blocks exceeds the named sequence chain",
      request({ prefix_of: { request_id: "a", blocks: 11 } }),
      held,
      false,
      "unknown_prefix",
      /11 exceeds the 10 sequence hashes/,
    ],
    [
      "blocks exceeds the named local chain",
      request(),
      { ...held, localCount: 4 },
      false,
      "unknown_prefix",
      /8 exceeds the 4 local hashes/,
    ],
    [
      "the named request carried no local hashes",
      request(),
      { ...held, localCount: null },
      false,
      "unknown_prefix",
      /local hashes/,
    ],
    [
      "it names itself",
      request({ prefix_of: { request_id: "b", blocks: 1 } }),
      held,
      false,
      "invalid_prefix",
      /itself/,
    ],
    ["it names a later item of the batch", request(), null, true, "invalid_prefix", /later item of this batch/],
    [
      "the named request arrived later",
      request(),
      { ...held, arrivedAt: T0 + 6 },
      false,
      "invalid_prefix",
      /arrived later/,
    ],
    [
      "the named request is of another session",
      request(),
      { ...held, sessionId: "s2" },
      false,
      "invalid_prefix",
      /another session/,
    ],
    [
      "the request has no session, the named one has",
      request({ session_id: undefined }),
      held,
      false,
      "invalid_prefix",
      /another session/,
    ],
    [
      "the named request is from another sender",
      request(),
      { ...held, source: "other" },
      false,
      "invalid_prefix",
      /another sender/,
    ],
  ];
  it.each(cases)("refuses when %s", (_, e, named, later, code, message) => {
    const r = resolvePrefix(e, named, later);
    expect(r).toMatchObject({ ok: false, code });
    expect(r.ok ? "" : r.error).toMatch(message);
  });
});
