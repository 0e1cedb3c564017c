import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { parsed, T0, turn, type Raw } from "../../test/events";
import { chainsOf } from "./chains";
import { insertEvents } from "./ingest";
import { windowRequests } from "./previews";

// A window read builds each turn's local chain once: a turn that is its base's whole chain and more is written after
// its base's bytes (one buffer per trajectory instead of a copy per turn) unless another turn wrote there first. Every
// row must read exactly what the general reader (chainsOf) reads.

const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i));
/** A turn whose local chain is `local` (its sequence chain mirrors it in another number range). */
const at = (n: number, local: string[], o: Raw = {}) =>
  turn(n, {
    block_size: 16,
    input_tokens: local.length * 16,
    cached_tokens: 0,
    local_hashes: local,
    sequence_hashes: local.map((h) => String(Number(h) + 50_000_000)),
    ...o,
  });

const L = hashes(2_000_000, 60);
const X = hashes(3_000_000, 5);
const Y = hashes(4_000_000, 12);

describe("window chains", () => {
  it("read as chainsOf reads them, consecutive turns sharing one buffer, a second extension of one base copied", () => {
    const db = testDb();
    const events = [
      at(1, L.slice(0, 40)),
      at(2, L.slice(0, 50)),
      // A subagent's first turn extends the session's latest turn (2) in place...
      at(3, [...L.slice(0, 50), ...X], { trajectory_id: "sub", parent_trajectory_id: "main" }),
      // ...so the main trajectory's next turn, extending 2 as well, must not write over it.
      at(4, L.slice(0, 60)),
      // A turn that keeps only part of its base is built from its links; the turn after it extends it in place.
      at(5, [...L.slice(0, 30), ...Y.slice(0, 10)]),
      at(6, [...L.slice(0, 30), ...Y]),
    ].map(parsed);
    insertEvents(db, events);
    const bases = db.$client
      .prepare("SELECT request_id AS r, chain_base IS NOT NULL AS based FROM requests ORDER BY arrived_at")
      .all() as { r: string; based: number }[];
    expect(bases.filter((b) => b.based).map((b) => b.r)).toEqual(["r2", "r3", "r4", "r5", "r6"]);

    const rows = windowRequests(db, T0, T0 + 60_000, 100);
    expect(rows.map((r) => r.requestId)).toEqual(["r1", "r2", "r3", "r4", "r5", "r6"]);
    for (const r of rows) {
      expect(r.chainIsLocal).toBe(true);
      expect(Buffer.compare(r.chain!, chainsOf(db, r.id)!.local!)).toBe(0);
    }
    const [r1, r2, r3, r4, r5, r6] = rows.map((r) => r.chain!);
    // A chain start's buffer is twice its bytes (no floor: many short first turns must not cost a page each).
    expect(r1!.buffer.byteLength).toBe(2 * 40 * 8);
    expect(r2!.buffer).toBe(r1!.buffer);
    expect(r3!.buffer).toBe(r2!.buffer);
    expect(r4!.buffer).not.toBe(r2!.buffer);
    expect(r5!.buffer).not.toBe(r4!.buffer);
    expect(r6!.buffer).toBe(r5!.buffer);
  });
});
