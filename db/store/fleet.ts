import { and, asc, gte, inArray, isNotNull, lt, lte, sql } from "drizzle-orm";
import type { FleetRequestGroup, FleetSample, FleetTtft } from "../rows/fleet";
import { num, valueRows } from "./sql";
import type { Store } from "./store";

// The overview's fleet table on either engine: raw requests per (cluster, model) and the latest worker samples per
// cluster, over at most the last hour of a range (server/routers/overview.ts clips it). What the rows mean is
// server/analysis/fleet.ts's.

/** (cluster, model) groups read at most. */
export const FLEET_MAX_GROUPS = 1_000;
/** Timed requests read at most for the percentiles (ordered by group, so a cut drops the last groups' tail). */
export const FLEET_MAX_TTFTS = 200_000;
/** Worker samples read at most (the last minute of a range: a sample per worker every few seconds). */
export const FLEET_MAX_SAMPLES = 50_000;

function arrivedIn(s: Store, from: number, to: number) {
  const r = s.t.requestReads;
  return and(gte(r.arrivedAt, from), lt(r.arrivedAt, to));
}

/** Requests that arrived in [from, to) per cluster id and model, with their input and cached tokens. */
export async function fleetRequestGroups(s: Store, from: number, to: number): Promise<FleetRequestGroup[]> {
  const r = s.t.requestReads;
  return s.db
    .select({
      clusterId: r.clusterId,
      model: r.model,
      requests: num(sql`count(*)`),
      inputTokens: num(sql`coalesce(sum(${r.inputTokens}), 0)`),
      cachedTokens: num(sql`coalesce(sum(${r.cachedTokens}), 0)`),
    })
    .from(r)
    .where(arrivedIn(s, from, to))
    .groupBy(r.clusterId, r.model)
    .orderBy(asc(r.clusterId), asc(r.model))
    .limit(FLEET_MAX_GROUPS);
}

/**
 * TTFT (ms) of each timed request that arrived in [from, to) (the earliest FLEET_MAX_TTFTS), ordered by cluster id,
 * model and value. Read in arrival order and sorted here: the database's sort of an hour of a fleet's requests (29k
 * rows) and the objects of its rows took ~85 ms of the fleet table's 120.
 */
export async function fleetTtfts(s: Store, from: number, to: number): Promise<FleetTtft[]> {
  const r = s.t.requestReads;
  const ttft = num(sql`${r.firstTokenAt} - ${r.arrivedAt}`);
  const rows = await valueRows(
    s,
    s.db
      .select({ clusterId: r.clusterId, model: r.model, ttft })
      .from(r)
      .where(and(arrivedIn(s, from, to), isNotNull(r.firstTokenAt)))
      .orderBy(asc(r.arrivedAt))
      .limit(FLEET_MAX_TTFTS),
  );
  const groups = new Map<string, { clusterId: number; model: string; ttfts: number[] }>();
  for (const [c, m, v] of rows) {
    const key = `${c as number}\u0000${m as string}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { clusterId: Number(c), model: m as string, ttfts: [] }));
    g.ttfts.push(Number(v));
  }
  const byScope = (a: { clusterId: number; model: string }, b: { clusterId: number; model: string }) =>
    a.clusterId - b.clusterId || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);
  return [...groups.values()]
    .sort(byScope)
    .flatMap((g) => g.ttfts.sort((a, b) => a - b).map((ttft) => ({ clusterId: g.clusterId, model: g.model, ttft })));
}

/** Worker samples in [from, to], oldest first, with the model each worker reported (null when it did not). */
export async function fleetSamples(s: Store, from: number, to: number): Promise<FleetSample[]> {
  const { workerStats: st, workers: w } = s.t;
  const rows = await s.db
    .select({
      clusterId: st.clusterId,
      workerId: st.workerId,
      ts: st.ts,
      kvActiveBlocks: st.kvActiveBlocks,
      kvTotalBlocks: st.kvTotalBlocks,
    })
    .from(st)
    .where(and(gte(st.ts, from), lte(st.ts, to)))
    .orderBy(asc(st.ts))
    .limit(FLEET_MAX_SAMPLES);
  const ids = [...new Set(rows.map((r) => r.workerId))];
  const models = new Map<string, string | null>();
  for (let i = 0; i < ids.length; i += 500) {
    const page = ids.slice(i, i + 500);
    for (const m of await s.db
      .select({ workerId: w.workerId, model: w.model })
      .from(w)
      .where(inArray(w.workerId, page)))
      models.set(m.workerId, m.model);
  }
  return rows.map((r) => ({ ...r, model: models.get(r.workerId) ?? null }));
}

/** Workers read at most for the scope menus. */
export const FLEET_MAX_WORKERS = 5_000;

/** Every worker's key and model (the scope menus: which clusters serve which models). */
export async function workerModels(s: Store): Promise<{ workerId: string; model: string | null }[]> {
  const w = s.t.workers;
  return s.db
    .select({ workerId: w.workerId, model: w.model })
    .from(w)
    .orderBy(asc(w.workerId))
    .limit(FLEET_MAX_WORKERS);
}
