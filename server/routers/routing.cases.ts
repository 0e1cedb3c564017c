import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { minimal, parsed, T0, type Raw } from "../../test/events";

// The routing procedures on seeded decisions, written once and run on each engine (routing.test.ts: SQLite;
// routing.pg.test.ts: PostgreSQL): the same figures from either.

const MIN = 60_000;
const NOW = T0 + 60 * MIN;
const FROM = NOW - 15 * MIN;
const range = { preset: "15m" } as const;

const cand = (worker_id: string, prefill_blocks: number, overlap_blocks: number, decode_blocks: number) => ({
  worker_id,
  prefill_blocks,
  overlap_blocks,
  decode_blocks,
  cost: Math.max(prefill_blocks - overlap_blocks, 0) + decode_blocks,
});
const decision = (id: string, ts: number, chosen: string, candidates: ReturnType<typeof cand>[], o: Raw = {}) =>
  minimal["route.decision"]({ id, ts, request_id: `req-${id}`, chosen_worker_id: chosen, candidates, ...o });

type Caller = ReturnType<PageStore["caller"]>;

export function routingCases(engine: PageEngine) {
  const opened: PageStore[] = [];
  const seed = async (raws: Raw[]): Promise<Caller> => {
    const p = await engine.seeded(raws.map(parsed));
    opened.push(p);
    return p.caller(() => NOW);
  };
  // One database per seeded case on PostgreSQL: dropping them all takes longer than a hook's default 10 s there.
  afterAll(() => Promise.all(opened.map((p) => p.close())), 120_000);

  describe.skipIf(engine.skip)(`${engine.engine}: routing`, () => {
    describe("routing.series and routing.list on seeded decisions", () => {
      let caller: Caller;
      beforeAll(async () => {
        caller = await seed([
          minimal["worker.up"]({ id: "up-w1", worker_id: "w1", block_size: 16, ts: FROM - MIN }),
          minimal["worker.up"]({ id: "up-w2", worker_id: "w2", block_size: 32, ts: FROM - MIN }),
          // d1: w1 chosen with 4 cached blocks while w2 held 9 → 5 blocks lost; its request says block size 16.
          decision("d1", FROM + 1 * MIN, "w1", [cand("w1", 10, 4, 1), cand("w2", 20, 9, 12)], { prompt_blocks: 10 }),
          minimal.request({
            id: "q-d1",
            request_id: "req-d1",
            ts: FROM + MIN,
            arrived_at: FROM + MIN,
            input_tokens: 1000,
            cached_tokens: 800,
            block_size: 16,
          }),
          // d2: w2 chosen with the best overlap → nothing lost; no request row, so w2's block size 32.
          decision("d2", FROM + 2 * MIN, "w2", [cand("w1", 20, 0, 5), cand("w2", 20, 8, 5)], { prompt_blocks: 20 }),
          // d3: w1 chosen with nothing cached while w2 held 10 → 10 blocks × w1's 16 tokens lost.
          decision("d3", FROM + 3 * MIN, "w1", [cand("w1", 10, 0, 1), cand("w2", 20, 10, 30)], { prompt_blocks: 10 }),
          minimal.request({
            id: "q-x",
            request_id: "req-x",
            ts: FROM + 3 * MIN,
            arrived_at: FROM + 3 * MIN,
            input_tokens: 1000,
            cached_tokens: 0,
          }),
          // outside [from, to)
          decision("d-before", FROM - 1, "w1", [cand("w1", 10, 0, 1), cand("w2", 10, 10, 1)], { prompt_blocks: 10 }),
          decision("d-at-to", NOW, "w1", [cand("w1", 10, 0, 1), cand("w2", 10, 10, 1)], { prompt_blocks: 10 }),
        ]);
      });

      it("routing loss = Σ (best − chosen) × block size / Σ prompt tokens, block size of the chosen worker", async () => {
        const s = await caller.routing.series({ range });
        // lost: 5×16 + 0 + 10×16 = 240 tokens; prompt: 10×16 + 20×32 + 10×16 = 960 tokens
        expect(s.loss.unit).toBe("tokens");
        expect(s.loss.total).toEqual({ share: 0.25, lost: 240, prompt: 960, unit: "tokens" });
        expect(s.loss.decisions).toBe(3);
        expect(s.loss.points.map((p) => [p.t - FROM, p.share])).toEqual([
          [1 * MIN, 0.5],
          [2 * MIN, 0],
          [3 * MIN, 1],
        ]);
      });

      it("puts the overall recomputed share (1 − cached / input) beside it", async () => {
        const s = await caller.routing.series({ range });
        expect(s.recomputed.share).toBeCloseTo(1200 / 2000, 12);
        expect(s.recomputed.points.map((p) => p.share)).toEqual([0.2, 1]);
      });

      it("counts decisions won per worker and bucket", async () => {
        const s = await caller.routing.series({ range });
        expect(s.step).toBe(10_000);
        expect(s.share.map((r) => [r.t - FROM, r.workerId, r.decisions])).toEqual([
          [1 * MIN, "w1", 1],
          [2 * MIN, "w2", 1],
          [3 * MIN, "w1", 1],
        ]);
      });

      it("lists decisions newest first with the winner, runner-up and why", async () => {
        const l = await caller.routing.list({ range });
        expect(l.items.map((d) => d.id)).toEqual(["d3", "d2", "d1"]);
        const d1 = l.items[2]!;
        expect(d1.explanation).toEqual({
          kind: "load",
          winnerId: "w1",
          runnerUpId: "w2",
          text: "won on load: 10 fewer prefill blocks and 11 fewer decode blocks outweighed 5 fewer cached blocks",
        });
        expect(d1.candidates.map((c) => [c.worker_id, c.cost, c.mark])).toEqual([
          ["w1", 7, "winner"],
          ["w2", 23, "runner_up"],
        ]);
        expect([d1.blockSize, d1.lostBlocks, d1.lostTokens]).toEqual([16, 5, 80]);
        expect(l.items[1]!.explanation.text).toBe("won on overlap: 8 more cached blocks");
        expect(l.nextCursor).toBeNull();
      });

      it("filters to decisions that lost prefix to routing", async () => {
        const l = await caller.routing.list({ range, lossOnly: true });
        expect(l.items.map((d) => d.id)).toEqual(["d3", "d1"]);
      });
    });

    describe("routing loss without a known block size", () => {
      it("falls back to blocks for the whole range and counts the unknown decisions", async () => {
        const c = await seed([
          minimal["worker.up"]({ id: "up-w1", worker_id: "w1", block_size: 16, ts: FROM }),
          decision("a", FROM + MIN, "w1", [cand("w1", 10, 2, 1), cand("w9", 10, 6, 9)], { prompt_blocks: 10 }),
          decision("b", FROM + 2 * MIN, "w9", [cand("w9", 30, 0, 1), cand("w8", 30, 30, 9)], { prompt_blocks: 30 }),
        ]);
        const s = await c.routing.series({ range });
        expect(s.loss.total).toEqual({ share: 34 / 40, lost: 34, prompt: 40, unit: "blocks" });
        expect(s.loss.unknownBlockSize).toBe(1);
        const l = await c.routing.list({ range });
        expect(l.items.map((d) => [d.id, d.blockSize, d.lostTokens])).toEqual([
          ["b", null, null],
          ["a", 16, 64],
        ]);
      });

      it("takes the request's block size for a worker that never reported one, and prefers the worker's when both exist", async () => {
        const c = await seed([
          minimal["worker.up"]({ id: "up-w1", worker_id: "w1", block_size: 32, ts: FROM }),
          decision("a", FROM + MIN, "w1", [cand("w1", 10, 2, 1), cand("w2", 10, 6, 9)], { prompt_blocks: 10 }),
          minimal.request({ id: "q-a", request_id: "req-a", ts: FROM + MIN, arrived_at: FROM + MIN, block_size: 16 }),
          decision("b", FROM + 2 * MIN, "w2", [cand("w2", 30, 0, 1), cand("w1", 30, 30, 9)], { prompt_blocks: 30 }),
          minimal.request({
            id: "q-b",
            request_id: "req-b",
            ts: FROM + 2 * MIN,
            arrived_at: FROM + 2 * MIN,
            block_size: 8,
          }),
        ]);
        const s = await c.routing.series({ range });
        // a: 4 lost × 32 of 10 × 32; b: 30 lost × 8 of 30 × 8
        expect(s.loss.total).toEqual({ share: (128 + 240) / (320 + 240), lost: 368, prompt: 560, unit: "tokens" });
        const l = await c.routing.list({ range });
        expect(l.items.map((d) => [d.id, d.blockSize, d.lostTokens])).toEqual([
          ["b", 8, 240],
          ["a", 32, 128],
        ]);
      });

      it("has no loss and no share without decisions (gaps, not zeros)", async () => {
        const s = await (await seed([])).routing.series({ range });
        expect(s.loss.total.share).toBeNull();
        expect(s.loss.points).toEqual([]);
        expect(s.recomputed.share).toBeNull();
      });
    });

    describe("routing.list paging", () => {
      let caller: Caller;
      // Seven decisions; three share one timestamp, so the cursor must break ties by id.
      const stamps: [string, number][] = [
        ["p1", 1],
        ["p2", 2],
        ["p3", 3],
        ["p4", 3],
        ["p5", 3],
        ["p6", 4],
        ["p7", 5],
      ];
      beforeAll(async () => {
        caller = await seed(stamps.map(([id, m]) => decision(id, FROM + m * MIN, "w1", [cand("w1", 10, 0, 1)])));
      });

      it("walks every decision exactly once, newest first, in pages of the limit", async () => {
        const seen: string[] = [];
        const sizes: number[] = [];
        let cursor: { ts: number; id: string } | null = null;
        do {
          const page: Awaited<ReturnType<typeof caller.routing.list>> = await caller.routing.list({
            range,
            limit: 3,
            cursor,
          });
          seen.push(...page.items.map((d) => d.id));
          sizes.push(page.items.length);
          cursor = page.nextCursor;
        } while (cursor);
        expect(seen).toEqual(["p7", "p6", "p5", "p4", "p3", "p2", "p1"]);
        expect(sizes).toEqual([3, 3, 1]);
      });

      it("refuses pages over 100 and ranges without bounds", async () => {
        await expect(caller.routing.list({ range, limit: 101 })).rejects.toThrow();
        await expect(caller.routing.list({ range: { from: NOW, to: NOW - 1 } })).rejects.toThrow();
      });
    });
  });
}
