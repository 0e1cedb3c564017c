import { beforeEach, describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { minimal, ndjson, T0, type Raw } from "../../test/events";
import { ingestBody } from "./ingest";
import type { Db } from "../../db/sqlite/client";
import { chainStringsOf, forgetChains, sessionChains } from "../../db/sqlite/chains";
import { ORIGIN_WINDOW_MS } from "../../db/sqlite/ingest-chains";
import { deleteBatchBefore } from "../../db/sqlite/retention";

// A session's first turn (full lists, no earlier turn to extend) stored as runs of a recent first turn's local chain.

const NDJSON = "application/x-ndjson";
const range = (from: number, to: number, salt = 0) =>
  Array.from({ length: to - from }, (_, i) => String(BigInt(from + i) * 1_000_003n + BigInt(salt)));
/** The shared system prompt and tool definitions (local hashes: the same content in every session). */
const PROMPT = range(0, 467, 7);

/** The first turn of session `s` at `at` ms after T0: its own opening block, the shared prompt, then its own blocks. */
const first = (s: string, at: number, own: number, o: Raw = {}) =>
  minimal.request({
    id: `ev-${s}`,
    request_id: `r-${s}`,
    session_id: s,
    trajectory_id: `t-${s}`,
    arrived_at: T0 + at,
    ts: T0 + at,
    sequence_hashes: range(0, 468 + own, s.length * 1_000 + s.charCodeAt(s.length - 1)),
    local_hashes: [
      ...range(10_000 + s.charCodeAt(s.length - 1), 10_001 + s.charCodeAt(s.length - 1), 3),
      ...PROMPT,
      ...range(50_000, 50_000 + own, s.charCodeAt(s.length - 1)),
    ],
    ...o,
  });

type Stored = {
  local: Buffer | null;
  refs: Buffer | null;
  base: string | null;
  seqShared: number;
  localShared: number;
};
const stored = (db: Db, id: string) =>
  db.$client
    .prepare(
      "SELECT local_hashes AS local, local_refs AS refs, chain_base AS base, seq_shared AS seqShared, local_shared AS localShared FROM requests WHERE id = ?",
    )
    .get(id) as Stored;
const wire = (e: ReturnType<typeof first>) => ({
  seq: e.sequence_hashes as string[],
  local: e.local_hashes as string[],
});

let db: Db;
beforeEach(() => {
  db = testDb();
});

describe("first turns stored as runs of another session's first turn", () => {
  it("keep only their own local hashes and read back exactly, on every path (one row, a session, after a restart)", () => {
    const a = first("sa", 0, 30);
    const b = first("sb", 1_000, 12);
    const c = first("sc", 2_000, 0);
    expect(ingestBody(db, ndjson([a, b]), NDJSON).accepted).toBe(2);
    expect(ingestBody(db, ndjson([c]), NDJSON).accepted).toBe(1);
    expect(stored(db, "ev-sa")).toMatchObject({ base: null, refs: null });
    for (const [e, own] of [
      [b, 12],
      [c, 0],
    ] as const) {
      const row = stored(db, e.id as string);
      expect(row).toMatchObject({ base: "ev-sa", seqShared: 0, localShared: 0 });
      expect(row.local!.byteLength / 8).toBe(1 + own);
      expect(row.refs!.byteLength).toBeLessThan(12);
    }
    forgetChains(db);
    for (const e of [a, b, c]) expect(chainStringsOf(db, e.id as string)).toEqual(wire(e));
    forgetChains(db);
    expect(sessionChains(db, "sb").get("r-sb")).toEqual({ sequence_hashes: wire(b).seq, local_hashes: wire(b).local });
  });

  it("a later turn extending a first turn stored as runs reads back exactly", () => {
    const a = first("sa", 0, 5);
    const b = first("sb", 1_000, 5);
    const next = minimal.request({
      id: "ev-sb-2",
      request_id: "r-sb-2",
      session_id: "sb",
      trajectory_id: "t-sb",
      arrived_at: T0 + 5_000,
      ts: T0 + 5_000,
      sequence_hashes: [...(b.sequence_hashes as string[]), ...range(90_000, 90_010)],
      local_hashes: [...(b.local_hashes as string[]), ...range(91_000, 91_010)],
    });
    ingestBody(db, ndjson([a, b, next]), NDJSON);
    expect(stored(db, "ev-sb-2")).toMatchObject({ base: "ev-sb", localShared: 473, refs: null });
    forgetChains(db);
    expect(chainStringsOf(db, "ev-sb-2")).toEqual({ seq: next.sequence_hashes, local: next.local_hashes });
    forgetChains(db);
    expect(sessionChains(db, "sb").get("r-sb-2")?.local_hashes).toEqual(next.local_hashes);
  });

  it.each([
    ["an origin older than the window", false, first("sb", ORIGIN_WINDOW_MS + 1, 3)],
    ["an origin at the window's edge", true, first("sb", ORIGIN_WINDOW_MS, 3)],
    [
      "a turn sharing fewer than 4 local hashes",
      false,
      first("sb", 1_000, 3, { local_hashes: [...PROMPT.slice(0, 3), ...range(1, 9)] }),
    ],
  ])("%s: stored as runs %s, read back exactly", (_, runs, b) => {
    ingestBody(db, ndjson([first("sa", 0, 3), b]), NDJSON);
    expect(stored(db, "ev-sb").refs !== null).toBe(runs);
    forgetChains(db);
    expect(chainStringsOf(db, "ev-sb")).toEqual(wire(b));
  });

  it("never refers to an origin deleted since, and retention stores its dependents whole before deleting it", () => {
    const a = first("sa", 0, 4);
    const b = first("sb", 1_000, 4);
    ingestBody(db, ndjson([a, b]), NDJSON);
    expect(deleteBatchBefore(db, "requests", "arrived_at", T0 + 500, 100)).toBe(1);
    forgetChains(db);
    expect(stored(db, "ev-sb")).toMatchObject({ base: null, refs: null, seqShared: 0, localShared: 0 });
    expect(chainStringsOf(db, "ev-sb")).toEqual(wire(b));
    // the connection still remembers ev-sa's hashes: a later first turn finds it gone and refers to ev-sb or nothing
    const c = first("sc", 2_000, 2);
    ingestBody(db, ndjson([c]), NDJSON);
    expect(stored(db, "ev-sc").base).not.toBe("ev-sa");
    forgetChains(db);
    expect(chainStringsOf(db, "ev-sc")).toEqual(wire(c));
  });
});
