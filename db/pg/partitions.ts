import type postgres from "postgres";
import { pgTransaction } from "./client";

// Daily partitions of PostgreSQL's event tables (declarative range partitioning on ts, Unix ms): created ahead of the
// rows that need them, dropped whole by retention.

export const DAY_MS = 86_400_000;

/** Retention tier of a partitioned table: raw samples age out after hours, detail after days (as on SQLite). */
export type PartitionTier = "raw" | "detail";

/** Every partitioned table and its tier; requests are kept unpartitioned (sessions and chains are built from them). */
export const PARTITIONED: Readonly<Record<string, PartitionTier>> = {
  worker_stats: "raw",
  kv_events: "raw",
  worker_events: "detail",
  route_decisions: "detail",
  tools: "detail",
  reasoning_spans: "detail",
  planner_decisions: "detail",
  policy_acks: "detail",
};

const TABLES = Object.keys(PARTITIONED);

/** Day number (days since the Unix epoch, UTC) of a Unix ms instant. */
export const dayOf = (ts: number) => Math.floor(ts / DAY_MS);

/** A partition's name: its table, then its UTC day as yyyymmdd. */
export function partitionName(table: string, day: number): string {
  return `${table}_d${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** The UTC day a partition name stands for, or null when the name is not one partitionName makes for table. */
export function dayOfPartition(table: string, name: string): number | null {
  const m = new RegExp(`^${table}_d(\\d{4})(\\d{2})(\\d{2})$`).exec(name);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isFinite(ms) ? ms / DAY_MS : null;
}

const known = new WeakMap<postgres.Sql, Set<number>>();

/**
 * Make sure every partitioned table has a partition for each of these days. Days this connection already made or saw
 * cost nothing; others are created in one short transaction of their own (never inside an ingest batch, whose
 * transaction would otherwise hold the parent's lock), serialised across processes by an advisory lock.
 */
export async function ensurePartitions(sql: postgres.Sql, days: Iterable<number>): Promise<void> {
  let seen = known.get(sql);
  if (!seen) known.set(sql, (seen = new Set()));
  const missing = [...new Set(days)].filter((d) => !seen.has(d)).sort((a, b) => a - b);
  if (missing.length === 0) return;
  await pgTransaction(sql, async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('switchyard.partitions'))`;
    for (const day of missing)
      for (const table of TABLES)
        await tx.unsafe(
          `CREATE TABLE IF NOT EXISTS "${partitionName(table, day)}" PARTITION OF "${table}" FOR VALUES FROM (${day * DAY_MS}) TO (${(day + 1) * DAY_MS})`,
        );
  });
  for (const day of missing) seen.add(day);
}

/** Partitions for today and the next `ahead` days (UTC), so ingest at midnight finds its partition made. */
export function ensureDaysAhead(sql: postgres.Sql, now: number, ahead = 1): Promise<void> {
  const today = dayOf(now);
  return ensurePartitions(
    sql,
    Array.from({ length: ahead + 1 }, (_, i) => today + i),
  );
}

/** Every partition of the partitioned tables: table, partition name and its day (names this module did not make: skipped). */
export async function listPartitions(sql: postgres.Sql): Promise<{ table: string; name: string; day: number }[]> {
  const rows = await sql<{ parent: string; child: string }[]>`
    SELECT p.relname AS parent, c.relname AS child FROM pg_inherits i
    JOIN pg_class p ON p.oid = i.inhparent JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND p.relname IN ${sql(TABLES)}
    ORDER BY c.relname`;
  const out: { table: string; name: string; day: number }[] = [];
  for (const r of rows) {
    const day = dayOfPartition(r.parent, r.child);
    if (day !== null) out.push({ table: r.parent, name: r.child, day });
  }
  return out;
}

/**
 * Retention on PostgreSQL: drop every partition whose whole day ends at or before its tier's cutoff (Unix ms). A
 * partition straddling the cutoff is kept whole, so rows stay up to one day longer than on SQLite. Returns the names
 * dropped, oldest first.
 */
export async function dropPartitionsBefore(
  sql: postgres.Sql,
  cutoffs: Readonly<Record<PartitionTier, number>>,
): Promise<string[]> {
  const dropped: string[] = [];
  const seen = known.get(sql);
  const parts = (await listPartitions(sql)).sort((a, b) => a.day - b.day || a.name.localeCompare(b.name));
  for (const p of parts) {
    if ((p.day + 1) * DAY_MS > cutoffs[PARTITIONED[p.table]!]) continue;
    await sql.unsafe(`DROP TABLE IF EXISTS "${p.name}"`);
    dropped.push(p.name);
    seen?.delete(p.day);
  }
  return dropped;
}

/** Forget which partitions this connection made (another process may have dropped some). */
export function forgetPartitions(sql: postgres.Sql): void {
  known.delete(sql);
}
