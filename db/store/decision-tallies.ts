import { and, gte, inArray, lt, sql, type Column, type SQL } from "drizzle-orm";
import { rollupCover, type Span } from "./rollup-cover";
import { num } from "./sql";
import type { Store } from "./store";

// Routing decisions counted over a range from the routing rollups (route_decisions_15m and _1m, kept at ingest) for the
// buckets the range holds whole, and from raw decisions for the parts of minutes at its edges: the same counts as
// counting raw rows, without reading a row per decision.

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

/** route.decision rows in [from, to). */
export async function decisionTotal(s: Store, from: number, to: number): Promise<number> {
  const t = tallyRows(s, from, to);
  if (!t) return 0;
  const [r] = await s.db.select({ n: num(sql`coalesce(sum(${t.n}), 0)`) }).from(t);
  return r?.n ?? 0;
}

/** Decisions in [from, to) each of `workerIds` won (was chosen for), keyed by worker id; workers without any are absent. */
export async function decisionsWonBy(
  s: Store,
  workerIds: readonly string[],
  from: number,
  to: number,
): Promise<Map<string, number>> {
  const t = workerIds.length ? tallyRows(s, from, to, workerIds) : null;
  if (!t) return new Map();
  const won = await s.db
    .select({ w: t.w, n: num(sql`sum(${t.n})`) })
    .from(t)
    .groupBy(t.w)
    .limit(workerIds.length);
  return new Map(won.map((r) => [r.w, r.n]));
}
