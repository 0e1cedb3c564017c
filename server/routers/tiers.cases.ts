import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addKvbmSample } from "../../db/store/tiers";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { parseEvent, type TelemetryEvent } from "../ingest/events";

// The tiers procedures on seeded events and KVBM scrapes, written once and run on each engine (tiers.test.ts: SQLite;
// tiers.pg.test.ts: PostgreSQL): every figure from the engine's own ingest rollups and the store's KVBM minutes.

const T0 = 1_764_417_600_000;
const MIN = 60_000;
const NOW = T0 + 15 * MIN;
const range = { from: T0, to: NOW };

const ev = (raw: Record<string, unknown>): TelemetryEvent => {
  const r = parseEvent(raw);
  if (!r.ok) throw new Error(r.error);
  return r.event;
};

const req = (id: string, at: number, o: Record<string, unknown>) => ({
  id,
  kind: "request",
  ts: at,
  request_id: id,
  worker_id: "w1",
  api: "messages",
  model: "m",
  arrived_at: at,
  input_tokens: 1000,
  output_tokens: 10,
  status: "ok",
  ...o,
});

const kvEvents = [
  { id: "s1", kind: "kv.stored", ts: T0 + 1_000, worker_id: "w1", block_hashes: ["1", "2", "3"], parent_hash: null },
  { id: "r1", kind: "kv.removed", ts: T0 + 2 * MIN, worker_id: "w1", block_hashes: ["2", "3"], reason: "offloaded" },
  {
    id: "s2",
    kind: "kv.stored",
    ts: T0 + 2 * MIN,
    worker_id: "w1",
    block_hashes: ["2", "3"],
    parent_hash: "1",
    storage_tier: "host",
  },
  {
    id: "s3",
    kind: "kv.stored",
    ts: T0 + 5 * MIN,
    worker_id: "w1",
    block_hashes: ["2"],
    parent_hash: "1",
    onboarded_from: "host",
  },
];

const kvbm = (minute: number, o: Partial<Parameters<typeof addKvbmSample>[1]> = {}) => ({
  workerId: "w1",
  minute,
  offloadD2h: 0,
  offloadH2d: 0,
  offloadD2d: 0,
  onboardH2d: 0,
  onboardD2d: 0,
  hostHitRate: null,
  diskHitRate: null,
  ...o,
});

export function tiersCases(e: PageEngine): void {
  describe.skipIf(e.skip)(`tiers router on ${e.engine}`, () => {
    const opened: PageStore[] = [];
    const seeded = async (events: Record<string, unknown>[]) => {
      const s = await e.seeded(events.map(ev));
      opened.push(s);
      return s;
    };
    afterAll(() => Promise.all(opened.map((s) => s.close())));

    it("a cluster with device-only cached tokens has no split; one with a lower tier does", async () => {
      const deviceOnly = await seeded([req("a", T0 + MIN, { cached_tokens: 800 })]);
      expect((await deviceOnly.caller(() => NOW).tiers.cluster({ range })).split).toBeNull();
      const tiered = await seeded([
        req("a", T0 + MIN, { cached_tokens: 800 }),
        req("b", T0 + 2 * MIN, {
          cached_tokens: 600,
          cached_tokens_by_tier: { device: 200, host: 400 },
          prefetched_tokens: 300,
        }),
      ]);
      expect((await tiered.caller(() => NOW).tiers.cluster({ range })).split).toEqual({
        device: 1000,
        host: 400,
        disk: 0,
        shared: 0,
        prefetched: 300,
      });
      const empty = { from: T0 - 60 * MIN, to: T0 - 30 * MIN };
      expect((await tiered.caller(() => NOW).tiers.cluster({ range: empty })).split).toBeNull();
    });

    describe("one worker's view", () => {
      let s: PageStore;
      beforeAll(async () => {
        s = await seeded([
          ...kvEvents,
          req("c", T0 + 5 * MIN, { cached_tokens: 900, cached_tokens_by_tier: { device: 600, host: 300 } }),
        ]);
        await addKvbmSample(s.store, kvbm(T0 + 3 * MIN, { offloadD2h: 40, onboardH2d: 10, hostHitRate: 0.5 }));
        // A second scrape in the minute adds its movements; a null hit rate keeps the one read before.
        await addKvbmSample(s.store, kvbm(T0 + 3 * MIN, { offloadD2d: 20, onboardD2d: 20, diskHitRate: 0.05 }));
        await addKvbmSample(s.store, kvbm(T0 + 4 * MIN, { offloadD2h: 6, hostHitRate: 0.25 }));
        await addKvbmSample(s.store, kvbm(T0 + 3 * MIN, { workerId: "w2", offloadD2h: 999 }));
      });

      it("blocks per tier over time, offloads and onboards, and hit rate per tier from posted events", async () => {
        const caller = s.caller(() => NOW);
        const v = await caller.tiers.worker({ id: "w1", range });
        expect(v.step).toBe(MIN);
        expect(v.tiers).toEqual(["device", "host"]);
        expect(v.points.map((p) => [p.blocks.device, p.blocks.host]).slice(0, 6)).toEqual([
          [3, null],
          [3, null],
          [1, 2],
          [1, 2],
          [1, 2],
          [2, 2],
        ]);
        expect(v.totals).toMatchObject({
          offloaded: 2,
          onboarded: 1,
          cached: { device: 600, host: 300, disk: 0, shared: 0 },
        });
        expect(v.points[5]!.hit).toEqual({ device: 0.6, host: 0.3, disk: 0, shared: 0 });
        expect((await caller.tiers.worker({ id: "w2", range })).tiers).toEqual([]);
      });

      it("KVBM minutes: movements summed per minute, the last hit rate read kept, other workers apart", async () => {
        const v = await s.caller(() => NOW).tiers.worker({ id: "w1", range });
        expect(v.totals).toMatchObject({ kvbmOffloaded: 66, kvbmOnboarded: 30 });
        expect(v.points.map((p) => [p.kvbmHostHit, p.kvbmDiskHit]).slice(2, 6)).toEqual([
          [null, null],
          [0.5, 0.05],
          [0.25, null],
          [null, null],
        ]);
      });

      it("carries the block levels from before the range into it", async () => {
        const later = { from: T0 + 3 * MIN, to: NOW };
        const v = await s.caller(() => NOW).tiers.worker({ id: "w1", range: later });
        expect(v.points.map((p) => [p.blocks.device, p.blocks.host]).slice(0, 3)).toEqual([
          [1, 2],
          [1, 2],
          [2, 2],
        ]);
      });

      it.each([
        ["an empty worker id", { id: "", range }],
        ["a worker id over the length limit", { id: "w".repeat(300), range }],
        ["a range that ends before it starts", { id: "w1", range: { from: NOW, to: T0 } }],
      ])("refuses %s", async (_name, input) => {
        await expect(s.caller(() => NOW).tiers.worker(input)).rejects.toMatchObject({ code: "BAD_REQUEST" });
      });
    });
  });
}
