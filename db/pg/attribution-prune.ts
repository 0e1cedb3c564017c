import type postgres from "postgres";
import { texts } from "./attribution";

// The rows of the PostgreSQL attribution index's prune (server/jobs/attribution-pg-loop.ts decides what goes).

type Q = postgres.Sql | postgres.ReservedSql;

/** Up to `limit` attr_blocks rows with a key above `after` (null: from the lowest), in key order. */
export async function blocksAfterPg(
  q: Q,
  after: string | null,
  limit: number,
): Promise<{ key: string; intervals: Buffer | null; firstAt: number | null }[]> {
  const from = after ?? "8000000000000000";
  const inclusive = after === null;
  return q<{ key: string; intervals: Buffer | null; firstAt: number | null }[]>`
    SELECT lpad(to_hex(hash), 16, '0') AS key, intervals, first_at AS "firstAt" FROM attr_blocks
    WHERE hash > ('x' || ${from})::bit(64)::int8 OR (${inclusive} AND hash = ('x' || ${from})::bit(64)::int8)
    ORDER BY hash LIMIT ${limit}`;
}

/** Rewrite pruned blocks' intervals (null: none left) and delete the rows with nothing left. */
export async function prunedBlocksPg(
  tx: Q,
  rewrite: readonly { key: string; intervals: Buffer | null }[],
  remove: readonly string[],
): Promise<void> {
  if (rewrite.length)
    await tx`UPDATE attr_blocks b SET intervals = decode(u.iv, 'hex')
      FROM unnest(${texts(rewrite.map((r) => r.key))}::text[],
        ${`{${rewrite.map((r) => (r.intervals === null || r.intervals.length === 0 ? "NULL" : r.intervals.toString("hex"))).join(",")}}`}::text[]) AS u(h, iv)
      WHERE b.hash = ('x' || u.h)::bit(64)::int8`;
  if (remove.length)
    await tx`DELETE FROM attr_blocks WHERE hash = ANY(SELECT ('x' || h)::bit(64)::int8 FROM unnest(${texts([...remove])}::text[]) AS u(h))`;
}

/** Delete up to `limit` local marks older than cutoff (Unix ms); returns rows deleted. */
export async function pruneLocalPg(q: Q, cutoff: number, limit: number): Promise<number> {
  const rows =
    await q`DELETE FROM attr_local WHERE hash IN (SELECT hash FROM attr_local WHERE first_at < ${cutoff} LIMIT ${limit})
    RETURNING 1`;
  return rows.length;
}
