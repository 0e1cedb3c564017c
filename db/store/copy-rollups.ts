import { and, asc, gte, lt } from "drizzle-orm";
import type { Store, StoreDb } from "./store";

// Copy the page rollups from one store to another, rows as stored (bucket start `minute`). PostgreSQL's ingest writes
// the same rollups itself (db/pg/rollups.ts); bench:queries loads its data faster by copying the rows a SQLite ingest
// of the same events computed.

export const ROLLUP_TABLES = [
  "workerStats10s",
  "workerStats30s",
  "workerStats1m",
  "workerStats5m",
  "workerStats15m",
  "requests1m",
  "requestItl1m",
  "requestTtft1m",
  "routeDecisions1m",
  "routeDecisions15m",
] as const;

/** Rows per INSERT: under PostgreSQL's 65,535 parameters for the widest rollup (18 columns). */
const INSERT_ROWS = 2_000;
const SPAN_MS = 6 * 3_600_000;

/** Copy every rollup row with from ≤ minute < to; rows the target already holds are kept. Returns rows copied. */
export async function copyRollups(source: Store, target: Store, from: number, to: number): Promise<number> {
  let copied = 0;
  for (const key of ROLLUP_TABLES) {
    const [src, dst] = [source.t[key], target.t[key]];
    for (let a = from; a < to; a += SPAN_MS) {
      const rows = await source.db
        .select()
        .from(src)
        .where(and(gte(src.minute, a), lt(src.minute, Math.min(to, a + SPAN_MS))))
        .orderBy(asc(src.minute));
      for (let i = 0; i < rows.length; i += INSERT_ROWS) {
        const chunk = rows.slice(i, i + INSERT_ROWS);
        await (target.db as StoreDb)
          .insert(dst)
          .values(chunk as never)
          .onConflictDoNothing();
        copied += chunk.length;
      }
    }
  }
  return copied;
}
