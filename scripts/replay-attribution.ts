// `npx tsx scripts/replay-attribution.ts DB [--causes OUT] [--keep COPY]`: attribution from scratch over a recorded
// database (e.g. one kept by `npm run bench:storage -- --keep-db DB`), on a copy with the index and causes cleared.
// Prints the time per simulated ten minutes (so a slowdown over the hour shows), the total × real time beside a raw
// read of the job's input (a baseline measured in the same run), and the attribution tables' sizes. --causes writes
// every request's causes, one line per request in id order, to compare two versions of the job byte for byte.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "../db/sqlite/client";
import { attributionStep } from "../server/jobs/attribution";

const MB = 1e6;

function arg(argv: readonly string[], name: string): string | null {
  const i = argv.indexOf(name);
  return i >= 0 ? (argv[i + 1] ?? null) : null;
}

/**
 * A copy of a database at `copy` with the attribution index, causes and summaries cleared, opened as the job's thread
 * opens it (synchronous NORMAL). VACUUMed: the cleared tables' pages would otherwise sit on the freelist, and SQLite
 * searches it for a page near the one that splits on every allocation, which a fresh database (the live job's) never
 * does.
 */
export function clearedCopy(src: string, copy: string): Db {
  fs.copyFileSync(src, copy);
  const db = openDb(copy);
  const c = db.$client;
  c.exec(
    "DELETE FROM attr_blocks; DELETE FROM attr_names; DELETE FROM attr_clears; DELETE FROM attr_lists; DELETE FROM attr_local; DELETE FROM attr_state; DELETE FROM request_causes; DELETE FROM causes_1m; DELETE FROM session_summaries",
  );
  c.exec("VACUUM");
  c.pragma("synchronous = NORMAL");
  return db;
}

function main() {
  const argv = process.argv.slice(2);
  const src = argv[0];
  if (!src || !fs.existsSync(src)) throw new Error("usage: replay-attribution.ts DB [--causes OUT] [--keep COPY]");
  const keep = arg(argv, "--keep");
  const copy = keep ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-replay-")), "attr.db");
  const db = clearedCopy(src, copy);
  const c = db.$client;
  const span = c.prepare("SELECT min(arrived_at) AS lo, max(arrived_at) AS hi FROM requests").get() as {
    lo: number;
    hi: number;
  };
  const simSeconds = (span.hi - span.lo) / 1000;

  let t = performance.now();
  let bytes = 0;
  for (const r of c.prepare("SELECT block_hashes AS h, block_refs AS r FROM kv_events").raw().iterate() as Iterable<
    [Uint8Array | null, Uint8Array | null]
  >)
    bytes += (r[0]?.length ?? 0) + (r[1]?.length ?? 0);
  for (const r of c.prepare("SELECT * FROM requests").raw().iterate() as Iterable<unknown[]>)
    for (const v of r) bytes += v instanceof Uint8Array ? v.length : 8;
  const rawRead = (performance.now() - t) / 1000;

  const progress = c.prepare("SELECT arrived_at FROM requests WHERE rowid = ?").pluck();
  const cursor = c.prepare("SELECT value FROM attr_state WHERE key = 'requests'").pluck();
  const lastMark = { at: span.lo, wall: performance.now() };
  t = performance.now();
  const cpu0 = process.cpuUsage();
  const step = 600_000;
  for (;;) {
    const r = attributionStep(db);
    const cur = cursor.get() as number | undefined;
    const at = cur ? ((progress.get(cur) as number | undefined) ?? span.lo) : span.lo;
    if (at - lastMark.at >= step || r.caughtUp) {
      const now = performance.now();
      console.log(
        `  up to +${((at - span.lo) / 60_000).toFixed(0)} min: ${((at - lastMark.at) / (now - lastMark.wall)).toFixed(0)} x real time`,
      );
      lastMark.at = at;
      lastMark.wall = now;
    }
    if (r.caughtUp) break;
  }
  const seconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(
    `attribution: ${(simSeconds / seconds).toFixed(0)} x real time (${seconds.toFixed(1)} s, ${cpuSeconds.toFixed(1)} CPU s, for ${(simSeconds / 60).toFixed(0)} simulated min; baseline: a raw read of its input, ${(bytes / MB).toFixed(0)} MB, ${rawRead.toFixed(1)} s; ratio ${(seconds / rawRead).toFixed(1)})`,
  );
  c.pragma("wal_checkpoint(TRUNCATE)");
  const tables = c
    .prepare(
      "SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'attr_%' OR name LIKE 'sqlite_autoindex_attr_%' GROUP BY name ORDER BY bytes DESC",
    )
    .all() as { name: string; bytes: number }[];
  const total = tables.reduce((a, x) => a + x.bytes, 0);
  console.log(
    `attribution tables: ${(total / MB).toFixed(1)} MB (${tables.map((x) => `${x.name} ${(x.bytes / MB).toFixed(1)}`).join(", ")})`,
  );
  const out = arg(argv, "--causes");
  if (out) {
    const fd = fs.openSync(out, "w");
    for (const r of c
      .prepare(
        `SELECT r.id, rc.arrived_at, rc.recomputed, rc.cold, rc.diverged, rc.evicted, rc.routed_away, rc.unknown, rc.evicted_reason,
         rc.retention_version, rc.held_tokens, rc.wait_ms, rc.survived_tokens FROM request_causes rc JOIN requests r ON r.rowid = rc.rid ORDER BY r.id`,
      )
      .raw()
      .iterate() as Iterable<unknown[]>)
      fs.writeSync(fd, `${JSON.stringify(r)}\n`);
    for (const r of c.prepare("SELECT * FROM causes_1m ORDER BY minute").raw().iterate() as Iterable<unknown[]>)
      fs.writeSync(fd, `m ${JSON.stringify(r)}\n`);
    for (const r of c.prepare("SELECT * FROM session_summaries ORDER BY session_id").raw().iterate() as Iterable<
      unknown[]
    >)
      fs.writeSync(fd, `s ${JSON.stringify(r)}\n`);
    fs.closeSync(fd);
  }
  c.close();
  if (!keep) fs.rmSync(path.dirname(copy), { recursive: true, force: true });
}

if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === path.resolve(process.cwd(), "scripts", "replay-attribution.ts")
)
  main();
