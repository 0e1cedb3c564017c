import { describe, expect, it } from "vitest";
import { chainStringsOf } from "../../db/sqlite/chains";
import { testDb } from "../../test/db";
import { ingestBody } from "../ingest/ingest";
import { ChainCompactor } from "./compact-chains";
import { toJsonLine } from "./json-lines";
import { ofKind, runScenario } from "./test-support";

const events = runScenario({ scenario: "steady", seconds: 240 });
const requests = ofKind(events, "request");
const compactor = new ChainCompactor();
const out = events.map((e) => ({ e, ...compactor.line(e) }));
const bytes = (lines: readonly string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

describe("ChainCompactor: the simulator's compact request lines", () => {
  const reqLines = out.filter((o) => o.e.kind === "request");

  it("names the trajectory's previous request and carries only the added hashes", () => {
    const compact = reqLines
      .filter((o) => o.full !== null)
      .map(
        (o) =>
          JSON.parse(o.line) as {
            prefix_of: { request_id: string; blocks: number };
            trajectory_id: string;
            sequence_hashes: string[];
          },
      );
    expect(compact.length).toBeGreaterThan(requests.length / 2);
    const byId = new Map(requests.map((r) => [r.request_id, r]));
    for (const c of compact.slice(0, 200)) {
      const named = byId.get(c.prefix_of.request_id)!;
      expect(named.trajectory_id).toBe(c.trajectory_id);
      expect(named.sequence_hashes!.length).toBeGreaterThanOrEqual(c.prefix_of.blocks);
    }
  });

  it("sends a small fraction of the full lines' bytes for requests", () => {
    const compactBytes = bytes(reqLines.map((o) => o.line));
    const fullBytes = bytes(reqLines.map((o) => toJsonLine(o.e)));
    expect(compactBytes / fullBytes).toBeLessThan(0.25);
  });

  it("re-sends a compact request as exactly its full-list line", () => {
    const o = reqLines.find((x) => x.full !== null)!;
    expect(o.full!()).toBe(toJsonLine(o.e));
    expect(o.full!()).toBe(JSON.stringify(o.e));
  });

  it("ingests without a rejection, and every request's chains read back exactly as the full lists", () => {
    const db = testDb();
    let rejected = 0;
    for (let i = 0; i < out.length; i += 1_000) {
      const body = out
        .slice(i, i + 1_000)
        .map((o) => o.line)
        .join("\n");
      rejected += ingestBody(db, body, "application/x-ndjson").rejected;
    }
    expect(rejected).toBe(0);
    for (const r of requests) {
      expect(chainStringsOf(db, r.id as string), r.request_id).toEqual({
        seq: r.sequence_hashes,
        local: r.local_hashes,
      });
    }
  });
});
