import type Database from "better-sqlite3";

// Where a SQLite file's bytes go, per table and per index (SQLite's dbstat virtual table), for the storage benchmark.

export type Size = { name: string; table: string; index: boolean; bytes: number };

/** Bytes per table and per index (dbstat), largest table first, each table's indexes after it. */
export function tableSizes(db: Database.Database): Size[] {
  const rows = db
    .prepare(
      `SELECT d.name, coalesce(m.tbl_name, d.name) AS tbl, m.type = 'index' AS isIndex, sum(d.pgsize) AS bytes
       FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY d.name`,
    )
    .all() as { name: string; tbl: string; isIndex: number | null; bytes: number }[];
  const byTable = new Map<string, number>();
  for (const r of rows) byTable.set(r.tbl, (byTable.get(r.tbl) ?? 0) + r.bytes);
  return rows
    .map((r) => ({ name: r.name, table: r.tbl, index: r.isIndex === 1, bytes: r.bytes }))
    .sort(
      (a, b) =>
        byTable.get(b.table)! - byTable.get(a.table)! ||
        a.table.localeCompare(b.table) ||
        Number(a.index) - Number(b.index) ||
        b.bytes - a.bytes,
    );
}

/** Lines for the tables of 10 kB or more, largest first, each with its rows' and its indexes' MB. */
export function sizeLines(tables: readonly Size[]): string[] {
  const mb = (b: number) => (b / 1e6).toFixed(2);
  const out = tables.length ? ["tables (10 kB or more) with their indexes:"] : [];
  for (const t of tables.filter((t) => !t.index && t.bytes >= 10_000)) {
    const indexes = tables.filter((i) => i.index && i.table === t.name);
    const all = t.bytes + indexes.reduce((a, i) => a + i.bytes, 0);
    const list = indexes.map((i) => `${i.name} ${mb(i.bytes)}`).join(", ");
    out.push(`  ${t.name}: ${mb(all)} MB (rows ${mb(t.bytes)}${list ? `; indexes: ${list}` : ""})`);
  }
  return out;
}
