import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minuteOf } from "../../lib/counters";
import { minimal, parsed, stats, T0, type Raw } from "../../test/events";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { decisionTallies } from "./decision-tallies";
import { workerDecodeRows, workerPreemptions } from "./decode";
import { prefixTokens } from "./overview";
import { rolledDecisionBuckets } from "./routing";
import { rollupBuckets, rollupTotalBuckets } from "./workers";

// Reads that sum the 15- and 1-minute rollups for whole buckets and raw rows at the edges (rollup-cover.ts), written
// once and run on each engine (rollup-reads.test.ts: SQLite; rollup-reads.pg.test.ts: PostgreSQL): each must give
// what counting the raw events in the range gives.

const SEC = 1_000;
const MIN = 60_000;
const Q = 15 * MIN;

/** Decision times and chosen workers: on and just off minute and quarter boundaries, across two quarters. */
const DECISIONS: [number, string][] = [
  [T0 - 2 * MIN, "w1"],
  [T0 - 1, "w2"],
  [T0, "w1"],
  [T0 + 30 * SEC, "w2"],
  [T0 + MIN, "w2"],
  [T0 + 2 * MIN - 1, "w1"],
  [T0 + Q - 1, "w1"],
  [T0 + Q, "w2"],
  [T0 + Q + 10 * SEC, "w1"],
  [T0 + 20 * MIN, "w1"],
  [T0 + 2 * Q, "w2"],
  [T0 + 2 * Q + 3 * MIN + 5 * SEC, "w1"],
];

/** Stats samples (worker, ts, cumulative preemptions, batch tokens): two workers across a quarter boundary. */
const SAMPLES: [string, number, number | undefined, number | undefined][] = [
  ["w1", T0 - 3 * MIN, 2, 100],
  ["w1", T0 - 30 * SEC, 3, 300],
  ["w1", T0 + 10 * SEC, 5, undefined],
  ["w1", T0 + Q - 10 * SEC, 9, 50],
  ["w1", T0 + Q + 20 * SEC, 12, 70],
  ["w1", T0 + 2 * Q + MIN, 20, 10],
  ["w2", T0 + 5 * MIN, undefined, undefined],
  ["w2", T0 + Q + 2 * MIN, undefined, 40],
];

function seed(): Raw[] {
  const decisions = DECISIONS.map(([ts, chosen], i) =>
    minimal["route.decision"]({
      id: `rd-${i}`,
      ts,
      request_id: `r${i}`,
      chosen_worker_id: chosen,
      candidates: ["w1", "w2", "w3"].map((worker_id) => ({
        worker_id,
        overlap_blocks: 1,
        prefill_blocks: 9,
        decode_blocks: 0,
        cost: 9,
      })),
    }),
  );
  // Prefix counters grow by a different amount each sample, so every minute's and quarter's delta differs.
  const samples = SAMPLES.map(([w, ts, preemptions, batch_tokens], i) =>
    stats(w, ts, 1_000 + 97 * i * i, 500 + 31 * i * i, { preemptions, batch_tokens }),
  );
  return [...decisions, ...samples];
}

/** What counting the raw decisions in [from, to) gives. */
function counted(from: number, to: number) {
  const inRange = DECISIONS.filter(([ts]) => ts >= from && ts < to);
  const won = (w: string) => inRange.filter(([, c]) => c === w).length;
  return { total: inRange.length, won: { w1: won("w1"), w2: won("w2"), w3: won("w3") } };
}

/** What the 1-minute rows of the minutes overlapping [from, to) give: per worker, counter growth and mean batch tokens. */
function sampled(from: number, to: number, worker?: string) {
  const out: Record<string, { preemptions: number | null; batch: number | null }> = {};
  const rows = SAMPLES.filter(
    ([w, ts]) => minuteOf(ts) >= minuteOf(from) && minuteOf(ts) < to && (!worker || w === worker),
  );
  for (const w of new Set(rows.map(([id]) => id))) {
    const mine = rows.filter(([id]) => id === w);
    const p = mine.flatMap(([, , x]) => (x === undefined ? [] : [x]));
    const b = mine.flatMap(([, , , x]) => (x === undefined ? [] : [x]));
    out[w] = {
      preemptions: p.length ? Math.max(...p) - Math.min(...p) : null,
      batch: b.length ? b.reduce((a, x) => a + x, 0) / b.length : null,
    };
  }
  return out;
}

const RANGES: [string, number, number][] = [
  ["an empty range", T0, T0],
  ["an inverted range", T0 + MIN, T0],
  ["inside one minute", T0 + 10 * SEC, T0 + 50 * SEC],
  ["a decision exactly at from counts, one exactly at to does not", T0, T0 + MIN],
  ["whole minutes with raw edges", T0 - 1, T0 + 2 * MIN - 1],
  ["exactly one quarter", T0, T0 + Q],
  ["quarters, minutes and raw edges", T0 - 2 * MIN - 1, T0 + 2 * Q + 3 * MIN + 6 * SEC],
  ["edges inside minutes, across a quarter", T0 + 30 * SEC, T0 + Q + 10 * SEC],
  ["before anything was stored", T0 - 60 * MIN, T0 - 30 * MIN],
];

export function rollupReadCases(e: PageEngine): void {
  describe.skipIf(e.skip)(`rollup-and-edge reads on ${e.engine}`, () => {
    let seeded: PageStore;
    beforeAll(async () => {
      seeded = await e.seeded(seed().map(parsed));
    }, 60_000);
    afterAll(() => seeded.close());

    it.each(RANGES)(
      "%s: decisions in the range, and each worker's won (0 for one that never won)",
      async (_n, from, to) => {
        const t = await decisionTallies(seeded.store, ["w1", "w2", "w3"], from, to);
        expect({ total: t.total, won: Object.fromEntries(t.won) }).toEqual(counted(from, to));
      },
    );

    it.each([1, 2])(
      "with at most %i chosen workers grouped at once, the total and the workers left out are read apart",
      async (maxGroups) => {
        const [from, to] = [T0 - 1, T0 + 2 * Q + 3 * MIN + 6 * SEC];
        const t = await decisionTallies(seeded.store, ["w3", "w2", "w1"], from, to, maxGroups);
        expect({ total: t.total, won: Object.fromEntries(t.won) }).toEqual(counted(from, to));
      },
    );

    it("pins the counts of the widest range", async () => {
      const t = await decisionTallies(seeded.store, ["w1", "w3"], T0 - 2 * MIN - 1, T0 + 2 * Q + 3 * MIN + 6 * SEC);
      expect({ total: t.total, won: Object.fromEntries(t.won) }).toEqual({ total: 12, won: { w1: 7, w3: 0 } });
    });

    it.each(RANGES)("%s: preemption growth and mean batch tokens per worker", async (_n, from, to) => {
      const byWorker = async (worker?: string) => {
        const { workers } = await workerDecodeRows(seeded.store, from, to, worker);
        return Object.fromEntries(workers.map((r) => [r.w, { preemptions: r.preemptions, batch: r.batch }]));
      };
      expect(await byWorker()).toEqual(sampled(from, to));
      expect(await byWorker("w2")).toEqual(sampled(from, to, "w2"));
      const one = await workerPreemptions(seeded.store, from, to, "w1");
      expect(one).toBe(sampled(from, to, "w1").w1?.preemptions ?? 0);
    });

    it("pins one worker's preemptions over two quarters and the minutes around them", async () => {
      expect(await workerPreemptions(seeded.store, T0 - 3 * MIN, T0 + 2 * Q + 2 * MIN, "w1")).toBe(18);
      expect(await workerPreemptions(seeded.store, T0 + MIN, T0 + Q, "w1")).toBe(0);
    });

    it.each(RANGES)("%s: prefix tokens from quarters and minutes equal the minute rows' sums", async (_n, from, to) => {
      const m = seeded.store.t.workerStats1m;
      const minutes = await seeded.store.db
        .select({ w: m.workerId, minute: m.minute, q: m.prefixQueryDelta, h: m.prefixHitDelta })
        .from(m);
      const summed = (workers?: string[]) =>
        minutes
          .filter((r) => r.minute >= minuteOf(from) && r.minute < to && (!workers || workers.includes(r.w)))
          .reduce((a, r) => ({ query: a.query + Number(r.q), hit: a.hit + Number(r.h) }), { query: 0, hit: 0 });
      expect(await prefixTokens(seeded.store, from, to)).toEqual(summed());
      expect(await prefixTokens(seeded.store, from, to, ["w1"])).toEqual(summed(["w1"]));
    });

    it("pins the prefix tokens of two quarters and the minutes around them", async () => {
      const all = await prefixTokens(seeded.store, T0 - 3 * MIN, T0 + 2 * Q + 2 * MIN);
      expect(all.query).toBeGreaterThan(0);
      expect(all).not.toEqual(await prefixTokens(seeded.store, T0, T0 + 2 * Q));
    });

    it.each([
      ["10s", 30 * SEC, T0 - 3 * MIN, T0 + 2 * Q + 2 * MIN],
      ["1m", 5 * MIN, T0 - 3 * MIN, T0 + 2 * Q + 2 * MIN],
      ["15m", Q, T0 - Q, T0 + 3 * Q],
    ] as const)(
      "the %s rollup summed across workers per bucket of %i ms is the per-worker rows added up",
      async (resolution, step, from, to) => {
        const read = { from, to, step, resolution };
        const perWorker = await rollupBuckets(seeded.store, read);
        const added = (keep: (w: string) => boolean) => {
          const byT = new Map<
            number,
            { samples: number; kvActive: number; kvTotal: number; query: number; hit: number }
          >();
          for (const r of perWorker.filter((x) => keep(x.workerId))) {
            const b = byT.get(r.t) ?? { samples: 0, kvActive: 0, kvTotal: 0, query: 0, hit: 0 };
            byT.set(r.t, {
              samples: b.samples + r.samples,
              kvActive: b.kvActive + r.kvActive,
              kvTotal: b.kvTotal + r.kvTotal,
              query: b.query + r.query,
              hit: b.hit + r.hit,
            });
          }
          return [...byT].sort(([a], [b]) => a - b).map(([t, b]) => ({ workerId: "", t, ...b }));
        };
        expect(perWorker.length).toBeGreaterThan(0);
        expect(await rollupTotalBuckets(seeded.store, read)).toEqual(added(() => true));
        expect(await rollupTotalBuckets(seeded.store, { ...read, workers: ["w2"] })).toEqual(added((w) => w === "w2"));
        expect(await rollupTotalBuckets(seeded.store, { ...read, workers: [] })).toEqual([]);
      },
    );

    it.each([
      ["1m", MIN],
      ["15m", Q],
    ] as const)(
      "the %s decision rollup at its own step: each row a bucket, counted from the decisions",
      async (resolution, step) => {
        const [from, to] = [T0 - Q, T0 + 3 * Q];
        const rows = await rolledDecisionBuckets(seeded.store, resolution, from, to, step);
        const counts = new Map<string, number>();
        for (const [ts, w] of DECISIONS) {
          const key = `${ts - (ts % step)} ${w}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        const expected = [...counts]
          .map(([k, n]) => {
            const [t, w] = k.split(" ");
            return { t: Number(t), workerId: w!, decisions: n };
          })
          .sort((a, b) => a.t - b.t || (a.workerId < b.workerId ? -1 : 1));
        expect(rows.map(({ t, workerId, decisions }) => ({ t, workerId, decisions }))).toEqual(expected);
        // A coarser step sums the same rows.
        const coarse = await rolledDecisionBuckets(seeded.store, resolution, from, to, 2 * Q);
        expect(coarse.reduce((a, r) => a + r.decisions, 0)).toBe(rows.reduce((a, r) => a + r.decisions, 0));
      },
    );
  });
}
