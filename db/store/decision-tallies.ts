import { and, gte, inArray, lt, sql, type Column, type SQL } from "drizzle-orm";
import { rollupCover, type Span } from "./rollup-cover";
import { num } from "./sql";
import type { Store } from "./store";

// Routing decisions counted over a range from the routing rollups (route_decisions_15m and _1m, kept at ingest) for the
// buckets the range holds whole, and from raw decisions for the parts of minutes at its edges: the same counts as
// counting raw rows, without reading a row per decision.

/** Chosen workers one grouped read returns at most (the workers page lists at most 500). */
const MAX_GROUPS = 2_000;

/**
 * (chosen worker, decisions) rows covering [from, to): the cover's rollup rows and one row per raw decision at the
 * edges, optionally only of the workers named. A union to group or sum over; null when the range is empty.
 */
function tallyRows(s: Store, from: number, to: number, workerIds?: readonly string[]) {
  const { routeDecisions: d, routeDecisions1m: m, routeDecisions15m: q } = s.t;
  const cover = rollupCover(from, to);
  const ids = workerIds ? [...workerIds] : null;
  const branch = (t: typeof q | typeof m | typeof d, w: Column, at: Column, n: SQL<number>, x: Span) =>
    s.db
      .select({ w: sql<string>`${w}`.as("w"), n: n.as("n") })
      .from(t)
      .where(and(gte(at, x.from), lt(at, x.to), ids ? inArray(w, ids) : undefined));
  const branches = [
    ...(cover.quarters ? [branch(q, q.chosenWorkerId, q.minute, sql<number>`${q.decisions}`, cover.quarters)] : []),
    ...cover.minutes.map((x) => branch(m, m.chosenWorkerId, m.minute, sql<number>`${m.decisions}`, x)),
    ...cover.raw.map((x) => branch(d, d.chosenWorkerId, d.ts, sql<number>`1`, x)),
  ];
  const [first, ...rest] = branches;
  if (!first) return null;
  return rest.reduce((u, b) => u.unionAll(b), first.$dynamic()).as("t");
}

async function total(s: Store, from: number, to: number): Promise<number> {
  const t = tallyRows(s, from, to);
  if (!t) return 0;
  const [r] = await s.db.select({ n: num(sql`coalesce(sum(${t.n}), 0)`) }).from(t);
  return r?.n ?? 0;
}

async function wonBy(s: Store, from: number, to: number, workerIds?: readonly string[], limit?: number) {
  const t = tallyRows(s, from, to, workerIds);
  if (!t) return [];
  const q = s.db
    .select({ w: t.w, n: num(sql`sum(${t.n})`) })
    .from(t)
    .groupBy(t.w);
  return limit === undefined ? q : q.limit(limit);
}

export type DecisionTallies = { total: number; won: Map<string, number> };

/**
 * route.decision rows in [from, to), and how many of them each of `workerIds` won (was chosen for; 0 for none). One
 * grouped read over every chosen worker (filtering it by worker cost PostgreSQL more than it saved), its groups summed
 * for the total; when the range chose more than `maxGroups` workers, the total and the workers asked for that were
 * left out are read apart.
 */
export async function decisionTallies(
  s: Store,
  workerIds: readonly string[],
  from: number,
  to: number,
  maxGroups = MAX_GROUPS,
): Promise<DecisionTallies> {
  const ids = [...new Set(workerIds)];
  const groups = await wonBy(s, from, to, undefined, maxGroups);
  const won = new Map(groups.map((r) => [r.w, r.n]));
  const complete = groups.length < maxGroups;
  const missing = complete ? [] : ids.filter((w) => !won.has(w));
  const [n, rest] = await Promise.all([
    complete ? groups.reduce((a, r) => a + r.n, 0) : total(s, from, to),
    missing.length ? wonBy(s, from, to, missing) : [],
  ]);
  for (const r of rest) won.set(r.w, r.n);
  return { total: n, won: new Map(ids.map((w) => [w, won.get(w) ?? 0])) };
}
