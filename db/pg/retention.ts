import type postgres from "postgres";
import { CHAIN_BASE_LOCK, rebaseDependentsPg } from "./chains";
import { pgTransaction } from "./client";

// Retention's row deletes on PostgreSQL, for the tables kept unpartitioned (requests, rollups, summaries); the
// partitioned event tables age out whole days at a time (partitions.ts, dropPartitionsBefore).

/** Which of `tables` exist in the current schema (a table SQLite has and PostgreSQL does not yet is skipped). */
export async function existingTables(sql: postgres.Sql, tables: readonly string[]): Promise<Set<string>> {
  const rows = await sql<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname IN ${sql(tables as string[])}`;
  return new Set(rows.map((r) => r.name));
}

/**
 * Delete at most `limit` rows of `table` whose `column` (Unix ms) is before `before`, oldest first: one statement,
 * one short transaction. Returns how many rows went. Table and column are the caller's constants, never input.
 */
export async function deleteBatchBeforePg(
  sql: postgres.Sql,
  table: string,
  column: string,
  before: number,
  limit: number,
): Promise<number> {
  if (!/^[a-z0-9_]+$/.test(table) || !/^[a-z0-9_]+$/.test(column))
    throw new Error(`not a table name: ${table}.${column}`);
  if (table === "requests") return deleteRequestsBeforePg(sql, column, before, limit);
  const done = await sql.unsafe(
    `DELETE FROM "${table}" WHERE ctid IN (SELECT ctid FROM "${table}" WHERE "${column}" < $1 ORDER BY "${column}" LIMIT $2)`,
    [before, limit],
  );
  return done.count;
}

/**
 * Requests' batch: the rows that name one of the deleted as their chain base are stored whole first, in the same
 * transaction, holding the lock no ingest batch naming a base can hold beside it (db/pg/chains.ts).
 */
async function deleteRequestsBeforePg(
  sql: postgres.Sql,
  column: string,
  before: number,
  limit: number,
): Promise<number> {
  return pgTransaction(sql, async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${CHAIN_BASE_LOCK})`);
    const gone = await tx.unsafe<{ id: string }[]>(
      `SELECT id FROM requests WHERE "${column}" < $1 ORDER BY "${column}" LIMIT $2`,
      [before, limit],
    );
    const ids = gone.map((r) => r.id);
    await rebaseDependentsPg(tx, ids);
    const done = await tx.unsafe("DELETE FROM requests WHERE id = ANY($1::text[])", [ids]);
    return done.count;
  });
}
