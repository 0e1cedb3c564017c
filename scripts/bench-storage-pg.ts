// bench:storage's `--engine postgres`: the same stream posted over HTTP to a dashboard process on PostgreSQL.
import path from "node:path";
import postgres from "postgres";
import type { ChildProcess } from "node:child_process";
import { startThrowawayPg } from "../test/pg-server";
import { freshPg } from "../test/pg";
import { TEST_SECRET_KEY } from "../test/secret-key";
import { exited, postgresCpu, processCpu, startDashboard } from "./dashboard-process";
import { cpuByRole, threadCpu } from "./thread-cpu";
import type { SimStream } from "./sim-stream";

const MiB = 1024 * 1024;

/** What posting a stream to a dashboard gave (bench-storage.ts's ingest). */
export type Posted = { events: number; bytes: number; seconds: number; resent: number };

/**
 * The same stream posted over HTTP, as bench-storage.ts posts it to SQLite, to a dashboard process whose store is a
 * fresh PostgreSQL database: the rate ingest sustains there, its CPU, and how many compact requests were re-sent in
 * full (on PostgreSQL bodies in flight are stored concurrently, so a prefix may not have committed yet: unknown_prefix).
 */
export async function pgDashboardIngest(
  ingest: (url: string, stream: SimStream) => Promise<Posted>,
  stream: SimStream,
  dir: string,
  baseline: { sqlite: number; raw: number },
  cpuProf: string | null,
) {
  const given = process.env.SWITCHYARD_TEST_DATABASE_URL;
  const server = given ? null : await startThrowawayPg({ durable: true });
  try {
    const fresh = await freshPg(given ?? server!.url);
    await fresh.pg.$client.end({ timeout: 5 });
    let dash: { child: ChildProcess; url: string } | null = null;
    try {
      dash = await startDashboard(
        {
          SWITCHYARD_DATABASE_URL: fresh.url,
          SWITCHYARD_DB: path.join(dir, "unused-by-postgres.db"),
          SWITCHYARD_SECRET_KEY: TEST_SECRET_KEY,
        },
        cpuProf && path.join(cpuProf, "postgres"),
      );
      const pid = dash.child.pid!;
      const cpu0 = processCpu(pid);
      const threads0 = threadCpu(pid);
      const pg0 = postgresCpu();
      const ing = await ingest(dash.url, stream);
      const cpu1 = processCpu(pid);
      const threads1 = threadCpu(pid);
      const pg1 = postgresCpu();
      const rate = ing.events / ing.seconds;
      const cpu =
        (cpu0 !== null && cpu1 !== null ? `, dashboard CPU ${(cpu1 - cpu0).toFixed(1)} s` : "") +
        (pg0 !== null && pg1 !== null ? `, PostgreSQL's processes ${(pg1 - pg0).toFixed(1)} s` : "") +
        ` over ${ing.seconds.toFixed(1)} s`;
      console.log(
        `ingest on postgres (a dashboard process over HTTP, as above): ${Math.round(rate)} events/s (target ≥ 15,000; ${(ing.bytes / MiB / ing.seconds).toFixed(1)} MiB/s), ${(rate / baseline.sqlite).toFixed(2)}x sqlite's ingest above, ${(rate / baseline.raw).toFixed(3)}x raw inserts${cpu}; ${ing.resent} compact requests re-sent in full after unknown_prefix`,
      );
      if (threads1.size) console.log(`  its CPU by thread: ${cpuByRole(pid, threads0, threads1)}`);
      const ended = performance.now();
      const caughtUp = await pgAttributed(fresh.url, 900_000);
      console.log(
        caughtUp
          ? `  attribution on postgres: caught up ${((performance.now() - ended) / 1000).toFixed(1)} s after ingest ended`
          : "  attribution on postgres: not caught up 900 s after ingest ended",
      );
      console.log(`  ${await pgTableSizes(fresh.url)}`);
    } finally {
      if (dash) {
        dash.child.kill("SIGTERM");
        await exited(dash.child);
      }
      await fresh.drop();
    }
  } finally {
    server?.stop();
  }
}

/** The database's tables by size (partitions counted with their table). */
async function pgTableSizes(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ t: string; bytes: number }[]>`
      SELECT coalesce(p.relname, c.relname) AS t, sum(pg_total_relation_size(c.oid))::float8 AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
      WHERE n.nspname = current_schema() AND c.relkind = 'r' GROUP BY 1 ORDER BY 2 DESC`;
    const mb = (b: number) => (b / 1e6).toFixed(1);
    const total = rows.reduce((n, r) => n + r.bytes, 0);
    return `its tables after the stream: ${mb(total)} MB (${rows
      .slice(0, 5)
      .map((r) => `${r.t} ${mb(r.bytes)}`)
      .join(", ")}; with indexes and TOAST)`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Poll until the attribution job has judged every request and applied every KV event (its cursors, attr_state). */
async function pgAttributed(url: string, timeoutMs: number): Promise<boolean> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
      const [r] = await sql<{ done: boolean }[]>`SELECT
        (SELECT coalesce(max(rid), 0) FROM requests) <= coalesce((SELECT value FROM attr_state WHERE key = 'requests'), 0)
        AND (SELECT coalesce(max(seq), 0) FROM kv_events) <= coalesce((SELECT value FROM attr_state WHERE key = 'kv'), 0)
        AS done`;
      if (r!.done) return true;
    }
    return false;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
