import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../sqlite/client";
import type { PgDb } from "../pg/client";
import { insertEventsPg } from "../pg/ingest";
import { insertEvents } from "../sqlite/ingest";
import { clusterId, modelId } from "../ingest/clusters";
import type { IngestRow, StoreStatus } from "../rows/ingest";
import type { Store } from "./store";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { MAX_CLUSTERS } from "../../lib/memory-bounds";

// Events' clusters as each engine stores them (clusters.test.ts: SQLite; clusters.pg.test.ts: PostgreSQL).

const TABLES = [
  "worker_events",
  "worker_stats",
  "kv_events",
  "route_decisions",
  "requests",
  "tools",
  "reasoning_spans",
  "planner_decisions",
  "policy_acks",
];

async function ingest(s: Store, raws: Raw[]): Promise<StoreStatus[]> {
  const rows = raws.map(parsed) as IngestRow[];
  return s.engine === "pg" ? insertEventsPg(s.db as unknown as PgDb, rows) : insertEvents(s.db as unknown as Db, rows);
}

async function all<T>(s: Store, query: string): Promise<T[]> {
  if (s.engine === "pg") return (await (s.db as unknown as PgDb).$client.unsafe(query)) as unknown as T[];
  return (s.db as unknown as Db).$client.prepare(query).all() as T[];
}

/** Two names whose ids collide (found by search: ids are 31 bits). */
function collidingNames(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const name = `c${i}`;
    const id = clusterId(name);
    const other = seen.get(id);
    if (other) return [other, name];
    seen.set(id, name);
  }
}

export function clusterCases(engine: StoreEngine) {
  describe.skipIf(engine.skip)(`events' clusters (${engine.engine})`, () => {
    let two: TwoStores;
    let s: Store;
    beforeEach(async () => {
      two = await engine.open();
      s = two.a;
    });
    afterEach(async () => {
      await two.close();
    });

    it("stores every kind of event with its cluster's id, and the cluster's name once", async () => {
      const raws = (Object.keys(minimal) as (keyof typeof minimal)[]).flatMap((k, i) => [
        minimal[k]({ id: `s-${i}`, cluster: "staging" }),
        minimal[k]({ id: `d-${i}`, ts: T0 + 1 }),
      ]);
      expect(await ingest(s, raws)).toEqual(raws.map(() => "accepted"));
      const staging = clusterId("staging");
      for (const table of TABLES) {
        const ids = await all<{ c: number | string; n: number | string }>(
          s,
          `SELECT cluster_id AS c, count(*) AS n FROM ${table} GROUP BY cluster_id ORDER BY cluster_id`,
        );
        // As many rows of each cluster: every kind was sent once from each.
        const [d, st] = ids.map((r) => [Number(r.c), Number(r.n)]);
        expect({ table, clusters: ids.length, d: d?.[0], st: st?.[0] }).toEqual({
          table,
          clusters: 2,
          d: 0,
          st: staging,
        });
        expect(d![1]).toBe(st![1]);
      }
      const clusters = await all<{ id: number | string; name: string }>(s, "SELECT id, name FROM clusters ORDER BY id");
      expect(clusters.map((c) => [Number(c.id), c.name])).toEqual([
        [0, "default"],
        [staging, "staging"],
      ]);
    });

    it("keeps worker w1 of two clusters apart in every table keyed by worker", async () => {
      const kinds = ["worker.up", "worker.stats", "kv.stored", "kv.removed", "kv.cleared", "worker.down"] as const;
      const raws = ["staging", undefined].flatMap((cluster, c) => [
        ...kinds.map((k, i) => minimal[k]({ id: `${k}-${c}`, ts: T0 + i, ...(cluster ? { cluster } : {}) })),
        minimal["route.decision"]({ id: `rd-${c}`, request_id: `r${c}`, ...(cluster ? { cluster } : {}) }),
        minimal.request({ id: `req-${c}`, request_id: `r${c}`, worker_id: "w1", ...(cluster ? { cluster } : {}) }),
      ]);
      expect(await ingest(s, raws)).toEqual(raws.map(() => "accepted"));
      const ids = async (q: string) => (await all<{ w: string }>(s, q)).map((r) => r.w);
      expect(await ids("SELECT worker_id AS w FROM workers ORDER BY worker_id")).toEqual(["staging/w1", "w1"]);
      for (const table of ["worker_events", "worker_stats", "kv_events", "requests"]) {
        const w = await ids(`SELECT DISTINCT worker_id AS w FROM ${table} ORDER BY worker_id`);
        expect({ table, w }).toEqual({ table, w: ["staging/w1", "w1"] });
      }
      const chosen = await ids("SELECT DISTINCT chosen_worker_id AS w FROM route_decisions ORDER BY chosen_worker_id");
      expect(chosen).toEqual(["staging/w1", "w1"]);
    });

    it("rolls requests up per minute, cluster and model beside the unscoped rollup", async () => {
      const req = (id: string, model: string, at: number, ttft: number, cluster?: string) =>
        minimal.request({
          id,
          request_id: id,
          model,
          arrived_at: at,
          first_token_at: at + ttft,
          input_tokens: 100,
          cached_tokens: 40,
          ...(cluster ? { cluster } : {}),
        });
      const raws = [
        req("a", "m1", T0, 10),
        req("b", "m1", T0 + 1_000, 20),
        req("c", "m2", T0 + 2_000, 30),
        req("d", "m1", T0 + 3_000, 40, "staging"),
        req("e", "m1", T0 + 61_000, 50, "staging"),
      ];
      expect(await ingest(s, raws)).toEqual(raws.map(() => "accepted"));
      const rows = await all<Record<string, number | string>>(
        s,
        "SELECT minute, cluster_id, model_id, requests, input_tokens, cached_tokens FROM requests_scope_1m ORDER BY minute, cluster_id, model_id",
      );
      const m0 = T0 - (T0 % 60_000);
      const want = [
        [m0, 0, modelId("m1"), 2, 200, 80],
        [m0, 0, modelId("m2"), 1, 100, 40],
        [m0, clusterId("staging"), modelId("m1"), 1, 100, 40],
        [m0 + 60_000, clusterId("staging"), modelId("m1"), 1, 100, 40],
      ].sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!);
      expect(rows.map((r) => Object.values(r).map(Number))).toEqual(want);
      const ttft = await all<{ n: number | string }>(
        s,
        `SELECT sum(n) AS n FROM request_ttft_scope_1m WHERE cluster_id = ${clusterId("staging")}`,
      );
      expect(Number(ttft[0]!.n)).toBe(2);
      const total = await all<{ n: number | string }>(s, "SELECT sum(requests) AS n FROM requests_1m");
      expect(Number(total[0]!.n)).toBe(5);
    });

    it("refuses alone an event of a cluster whose id another stored name holds; the batch's others are stored", async () => {
      const [first, second] = collidingNames();
      expect(await ingest(s, [minimal["worker.stats"]({ id: "a", cluster: first })])).toEqual(["accepted"]);
      const out = await ingest(s, [
        minimal["worker.stats"]({ id: "b", cluster: second }),
        minimal["worker.stats"]({ id: "c", cluster: first }),
        minimal["worker.stats"]({ id: "d" }),
      ]);
      expect(out[0]).toMatchObject({ status: "rejected", code: "invalid_cluster" });
      expect((out[0] as { error: string }).error).toContain(`cannot be told apart from the stored cluster "${first}"`);
      expect(out.slice(1)).toEqual(["accepted", "accepted"]);
      const stored = await all<{ id: string }>(s, "SELECT id FROM worker_stats ORDER BY id");
      expect(stored.map((r) => r.id)).toEqual(["a", "c", "d"]);
      // The other connection (a second dashboard) refuses it too.
      const again = await ingest(two.b, [minimal["worker.stats"]({ id: "e", cluster: second })]);
      expect(again[0]).toMatchObject({ status: "rejected", code: "invalid_cluster" });
    });

    it(`refuses alone the events of a new cluster past ${MAX_CLUSTERS.toLocaleString("en-US")}, naming the bound`, async () => {
      const raws = Array.from({ length: MAX_CLUSTERS - 1 }, (_, i) =>
        minimal["kv.cleared"]({ id: `k${i}`, cluster: `fleet-${i}` }),
      );
      const out = await ingest(s, raws);
      expect(out.every((o) => o === "accepted")).toBe(true);
      const over = await ingest(s, [
        minimal["kv.cleared"]({ id: "new", cluster: "one-more" }),
        minimal["kv.cleared"]({ id: "known", cluster: "fleet-7" }),
      ]);
      expect(over[0]).toMatchObject({ status: "rejected", code: "invalid_cluster" });
      expect((over[0] as { error: string }).error).toContain("already 1,024 clusters");
      expect(over[1]).toBe("accepted");
      const n = await all<{ n: number | string }>(s, "SELECT count(*) AS n FROM clusters");
      expect(Number(n[0]!.n)).toBe(MAX_CLUSTERS);
    });
  });
}
