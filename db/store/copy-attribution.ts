import { asc, eq, getTableColumns, inArray } from "drizzle-orm";
import { sessionTables } from "./session-tables";
import type { Store, StoreDb } from "./store";

// Copy attribution's outputs (request_causes, causes_1m, session_summaries) from one store to another, as the
// attribution job wrote them. The job runs on SQLite only so far: this gives a PostgreSQL store, holding the same
// events through its own ingest, the causes and summaries a SQLite run over them computed, so the sessions pages can
// be compared on both engines over one input (tests). A causes row names its request by rid, which differs between
// the stores: it is matched by the request's id; a row whose request the target lacks is not copied.

/** Rows per INSERT: under PostgreSQL's 65,535 parameters for the widest table (24 columns). */
const INSERT_ROWS = 2_000;

async function insertAll(target: Store, table: object, rows: object[]): Promise<number> {
  for (let i = 0; i < rows.length; i += INSERT_ROWS)
    await (target.db as StoreDb)
      .insert(table as never)
      .values(rows.slice(i, i + INSERT_ROWS) as never)
      .onConflictDoNothing();
  return rows.length;
}

/** Copy every causes, per-minute causes and summary row; rows the target already holds are kept. Returns rows copied. */
export async function copyAttribution(source: Store, target: Store): Promise<number> {
  const [src, dst] = [sessionTables(source), sessionTables(target)];
  const { rid: _rid, ...causeCols } = getTableColumns(src.requestCauses);
  const causes = await source.db
    .select({ ...causeCols, id: src.requests.id })
    .from(src.requestCauses)
    .innerJoin(src.requests, eq(src.requests.rid, src.requestCauses.rid))
    .orderBy(asc(src.requestCauses.rid));
  const rids = new Map<string, number>();
  for (let i = 0; i < causes.length; i += INSERT_ROWS) {
    const ids = causes.slice(i, i + INSERT_ROWS).map((c) => c.id);
    const found = await target.db
      .select({ id: dst.requests.id, rid: dst.requests.rid })
      .from(dst.requests)
      .where(inArray(dst.requests.id, ids));
    for (const f of found) rids.set(f.id, f.rid);
  }
  const rows = causes.flatMap(({ id, ...c }) => {
    const rid = rids.get(id);
    return rid === undefined ? [] : [{ ...c, rid }];
  });
  let copied = await insertAll(target, dst.requestCauses, rows);
  copied += await insertAll(target, dst.causes1m, await source.db.select().from(src.causes1m));
  copied += await insertAll(target, dst.sessionSummaries, await source.db.select().from(src.sessionSummaries));
  return copied;
}
