import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { clusterId } from "../ingest/clusters";
import { windowRows } from "./impact";

// The impact panel's and the guard's window reads, written once and run on each engine (impact.test.ts: SQLite;
// impact.pg.test.ts: PostgreSQL, attribution's causes copied from a SQLite run over the same events).

const MIN = 60_000;

function seed(): Raw[] {
  const out: Raw[] = [];
  // Eight turns of one session a minute apart: TTFT 100, 200, ... 800 ms; the second repeats the first's prefix.
  for (let i = 0; i < 8; i++) {
    const at = T0 + i * MIN;
    out.push(
      minimal.request({
        id: `req-${i}`,
        request_id: `r${i}`,
        session_id: "s1",
        trajectory_id: "main",
        worker_id: "w1",
        arrived_at: at,
        first_token_at: i === 7 ? undefined : at + (i + 1) * 100,
        finished_at: at + 1_000,
        ts: at + 1_000,
        input_tokens: 12 + i * 4,
        cached_tokens: i * 4,
        block_size: 4,
        sequence_hashes: Array.from({ length: 3 + i }, (_, b) => String(100 + b)),
        local_hashes: Array.from({ length: 3 + i }, (_, b) => String(200 + b)),
      }),
    );
  }
  const removed = (n: number, ts: number, blocks: number, reason: string, storage_tier?: string) =>
    minimal["kv.removed"]({
      id: `kvr-${n}`,
      ts,
      block_hashes: Array.from({ length: blocks }, (_, b) => String(9_000 + n * 100 + b)),
      reason,
      storage_tier,
    });
  out.push(
    removed(1, T0 + 30_000, 3, "capacity"),
    removed(2, T0 + 90_000, 2, "capacity", "device"),
    removed(3, T0 + 100_000, 4, "ttl"),
    removed(4, T0 + 110_000, 5, "capacity", "host"),
    removed(5, T0 + 10 * MIN, 7, "capacity"),
  );
  return out;
}

export function impactCases(e: PageEngine): void {
  describe.skipIf(e.skip)(`impact windows on ${e.engine}`, () => {
    let seeded: PageStore;
    beforeAll(async () => {
      seeded = await e.seeded(seed().map(parsed));
    }, 60_000);
    afterAll(() => seeded.close());

    it.each([
      ["the first four minutes", T0, T0 + 4 * MIN, 4, 4 * 12 + 24, 24, [100, 200, 300, 400]],
      ["a window with a turn without a first token", T0 + 5 * MIN, T0 + 8 * MIN, 3, 3 * 12 + 72, 72, [600, 700]],
      ["an empty window", T0 - 10 * MIN, T0 - 5 * MIN, 0, 0, 0, []],
      ["an inverted window", T0 + 4 * MIN, T0, 0, 0, 0, []],
    ])("%s: request sums and TTFTs ascending", async (_n, from, to, requests, inputTokens, cachedTokens, ttfts) => {
      const w = await windowRows(seeded.store, { from, to });
      expect({ requests: w.requests, inputTokens: w.inputTokens, cachedTokens: w.cachedTokens }).toEqual({
        requests,
        inputTokens,
        cachedTokens,
      });
      expect(w.ttftsSorted).toEqual(ttfts);
    });

    it("device evictions by reason, largest first; other tiers and other times left out", async () => {
      const w = await windowRows(seeded.store, { from: T0, to: T0 + 2 * MIN });
      expect(w.evictions).toEqual([
        { reason: "capacity", blocks: 5 },
        { reason: "ttl", blocks: 4 },
      ]);
      expect((await windowRows(seeded.store, { from: T0 - MIN, to: T0 })).evictions).toEqual([]);
    });

    it("causes sum the attributed turns of the window; the first turn's blocks were cold", async () => {
      const all = await windowRows(seeded.store, { from: T0, to: T0 + 8 * MIN });
      const c = all.causes;
      expect(c.cold).toBeGreaterThan(0);
      expect(Object.values(c).every((v) => Number.isInteger(v) && v >= 0)).toBe(true);
      const first = await windowRows(seeded.store, { from: T0, to: T0 + 1 });
      expect(first.causes).toEqual({ cold: 12, diverged: 0, evicted: 0, routedAway: 0, unknown: 0 });
      const none = await windowRows(seeded.store, { from: T0 - 10 * MIN, to: T0 - 5 * MIN });
      expect(none.causes).toEqual({ cold: 0, diverged: 0, evicted: 0, routedAway: 0, unknown: 0 });
    });
  });

  describe.skipIf(e.skip)(`impact windows of one cluster on ${e.engine}`, () => {
    let seeded: PageStore;
    const STAGING = clusterId("staging");
    beforeAll(async () => {
      const staging: Raw[] = [
        minimal.request({
          id: "stg-req",
          request_id: "stg-r",
          cluster: "staging",
          model: "stg-model",
          session_id: "s-stg",
          worker_id: "w1",
          arrived_at: T0 + 30_000,
          first_token_at: T0 + 30_050,
          finished_at: T0 + 31_000,
          ts: T0 + 31_000,
          input_tokens: 100,
          cached_tokens: 0,
          block_size: 4,
          sequence_hashes: ["700", "701"],
          local_hashes: ["800", "801"],
        }),
        minimal["kv.removed"]({
          id: "stg-kvr",
          cluster: "staging",
          ts: T0 + 40_000,
          block_hashes: ["7001", "7002", "7003", "7004", "7005", "7006"],
          reason: "ttl",
        }),
      ];
      seeded = await e.seeded([...seed(), ...staging].map(parsed));
    }, 60_000);
    afterAll(() => seeded.close());

    it("counts only the cluster's requests, TTFTs, causes and evictions", async () => {
      const span = { from: T0, to: T0 + 2 * MIN };
      const [all, def, stg] = await Promise.all([
        windowRows(seeded.store, span),
        windowRows(seeded.store, span, { clusterId: 0 }),
        windowRows(seeded.store, span, { clusterId: STAGING }),
      ]);
      expect([all.requests, def.requests, stg.requests]).toEqual([3, 2, 1]);
      expect(stg).toMatchObject({ inputTokens: 100, cachedTokens: 0, ttftsSorted: [50] });
      expect(def.ttftsSorted).toEqual([100, 200]);
      expect(stg.evictions).toEqual([{ reason: "ttl", blocks: 6 }]);
      expect(def.evictions).toEqual([
        { reason: "capacity", blocks: 5 },
        { reason: "ttl", blocks: 4 },
      ]);
      expect(stg.causes.cold).toBe(100);
      // A model scope (a policy line of one model) counts that model's requests; evictions name no model.
      const [ofModel, ofOther] = await Promise.all([
        windowRows(seeded.store, span, { clusterId: STAGING, model: "stg-model" }),
        windowRows(seeded.store, span, { clusterId: STAGING, model: "another-model" }),
      ]);
      expect(ofModel).toMatchObject({ requests: 1, inputTokens: 100, ttftsSorted: [50] });
      expect(ofModel.causes.cold).toBe(100);
      expect(ofOther).toMatchObject({ requests: 0, inputTokens: 0, ttftsSorted: [] });
      expect(ofOther.causes.cold).toBe(0);
      expect(ofOther.evictions).toEqual([{ reason: "ttl", blocks: 6 }]);
      expect(def.causes.cold + def.causes.diverged + def.causes.evicted).toBe(
        all.causes.cold + all.causes.diverged + all.causes.evicted - 100,
      );
    });
  });
}
