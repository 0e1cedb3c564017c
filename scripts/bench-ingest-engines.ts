// bench:ingest's `--engine sqlite|postgres|both`: the same parsed events through each engine's store function, in
// the same batches, one engine after the other in this run, printed side by side.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../db/sqlite/client";
import { insertEvents } from "../db/sqlite/ingest";
import type { IngestRow } from "../db/rows/ingest";
import { connectPg } from "../db/pg/client";
import { forgetRecentRequests, insertEventsPg } from "../db/pg/ingest";
import { resolvePrefix } from "../server/ingest/prefix";
import { PgIngestPool } from "../server/ingest/pg/ingest-pool";
import type { TelemetryEvent } from "../server/ingest/events";
import { startThrowawayPg } from "../test/pg-server";
import { freshPg } from "../test/pg";

export type Engine = "sqlite" | "postgres";
export const ENGINES: Record<string, Engine[]> = {
  sqlite: ["sqlite"],
  postgres: ["postgres"],
  both: ["sqlite", "postgres"],
};

/** `--engine NAME` taken out of argv (the rest keeps its order); null engines: the option was not given. */
export function takeEngineOption(argv: readonly string[]): { engines: Engine[] | null; rest: string[] } {
  const rest = [...argv];
  const at = rest.findIndex((a) => a === "--engine" || a.startsWith("--engine="));
  if (at < 0) return { engines: null, rest };
  const value = rest[at]!.includes("=") ? rest[at]!.split("=")[1]! : rest[at + 1];
  rest.splice(at, rest[at]!.includes("=") ? 1 : 2);
  const engines = value === undefined ? undefined : ENGINES[value];
  if (!engines) throw new Error(`--engine must be sqlite, postgres or both (got ${JSON.stringify(value)})`);
  return { engines, rest };
}

const asRows = (events: readonly TelemetryEvent[]) => events as readonly IngestRow[];

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** unknownPrefix: of those not accepted, requests naming a request of a body still in flight (see benchPgRoute). */
type Result = { rate: number; notAccepted: number; unknownPrefix?: number };

/** SQLite: insertEvents on a fresh file (synchronous=FULL), one batch after another. */
function benchSqliteStore(events: readonly TelemetryEvent[], batch: number): Result {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-store-"));
  const db = openDb(path.join(dir, "store.db"));
  try {
    const started = performance.now();
    let notAccepted = 0;
    for (const b of batches(asRows(events), batch))
      for (const s of insertEvents(db, b, { resolvePrefix })) if (s !== "accepted") notAccepted++;
    return { rate: events.length / ((performance.now() - started) / 1000), notAccepted };
  } finally {
    db.$client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL: insertEventsPg into a fresh database (on SWITCHYARD_TEST_DATABASE_URL's server, else a throwaway
 * server with PostgreSQL's durable defaults), `concurrency` batches in flight as the dashboard's ingest workers have.
 */
async function benchPgStore(events: readonly TelemetryEvent[], batch: number, concurrency: number): Promise<Result> {
  const given = process.env.SWITCHYARD_TEST_DATABASE_URL;
  const server = given ? null : await startThrowawayPg({ durable: true });
  try {
    const fresh = await freshPg(given ?? server!.url);
    const pg = connectPg(fresh.url, { max: concurrency });
    try {
      const queue = batches(asRows(events), batch);
      // Batches go in order, each in-flight slot taking the next (a request's prefix is in an earlier batch).
      const started = performance.now();
      let next = 0;
      let notAccepted = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = next++; i < queue.length; i = next++)
            for (const s of await insertEventsPg(pg, queue[i]!, { resolvePrefix })) if (s !== "accepted") notAccepted++;
        }),
      );
      return { rate: events.length / ((performance.now() - started) / 1000), notAccepted };
    } finally {
      await pg.$client.end({ timeout: 5 });
      await fresh.drop();
    }
  } finally {
    server?.stop();
  }
}

/** The tables a body's ingest writes (emptied between the route's runs). */
const INGEST_TABLES = [
  "workers",
  "worker_events",
  "worker_stats",
  "kv_events",
  "route_decisions",
  "requests",
  "tools",
  "reasoning_spans",
  "planner_decisions",
  "policy_acks",
  "worker_stats_10s",
  "worker_stats_30s",
  "worker_stats_1m",
  "worker_stats_5m",
  "worker_stats_15m",
  "worker_counters",
  "requests_1m",
  "request_ttft_1m",
  "requests_scope_1m",
  "request_ttft_scope_1m",
  "request_itl_1m",
  "route_decisions_1m",
  "route_decisions_15m",
  "kv_tiers_1m",
  "worker_tier_blocks",
  "request_tiers_1m",
  "source_status",
];

const ROUTE_TOKEN = "bench-ingest-route-token-0123456789abcdef";

/** How the route handler ingests: inline on the event loop (0), or on this many PostgreSQL ingest threads. */
const INGEST_THREADS = [0, 1];

/**
 * PostgreSQL through POST /api/ingest's handler in this process (token check, body, decoding, validation, storing,
 * the JSON reply; no HTTP server in front): SWITCHYARD_DATABASE_URL names a fresh database, `concurrency` bodies in
 * flight, in order; once per INGEST_THREADS entry, the tables emptied between. Must run last in a process: the
 * server settings it sets are read once. With two bodies of one stream in flight, a request may name a request of the
 * other body before that body has committed: it is refused as unknown_prefix, which a sender answers by re-sending the
 * request with its full chains (the simulator's delivery does; this bench only counts them).
 */
async function benchPgRoute(bodies: readonly string[], concurrency: number): Promise<[number, Result][]> {
  const given = process.env.SWITCHYARD_TEST_DATABASE_URL;
  const server = given ? null : await startThrowawayPg({ durable: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-route-"));
  try {
    const fresh = await freshPg(given ?? server!.url);
    await fresh.pg.$client.end({ timeout: 5 });
    Object.assign(process.env, {
      SWITCHYARD_DATABASE_URL: fresh.url,
      SWITCHYARD_INGEST_TOKEN: ROUTE_TOKEN,
      SWITCHYARD_DB: path.join(dir, "unused.db"),
    });
    const { POST } = await import("../app/api/ingest/route");
    const { serverEngine } = await import("../server/runtime");
    const post = async (body: string) => {
      const res = await POST(
        new Request("http://localhost/api/ingest", {
          method: "POST",
          headers: { Authorization: `Bearer ${ROUTE_TOKEN}`, "Content-Type": "application/x-ndjson" },
          body,
        }),
      );
      const reply = (await res.json()) as {
        duplicate: number;
        rejected: number;
        items?: { status: string; code?: string }[];
      };
      if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(reply).slice(0, 300)}`);
      const unknownPrefix = (reply.items ?? []).filter((i) => i.code === "unknown_prefix").length;
      return { notAccepted: reply.duplicate + reply.rejected, unknownPrefix };
    };
    const out: [number, Result][] = [];
    try {
      for (const threads of INGEST_THREADS) {
        const pool = threads ? new PgIngestPool(fresh.url, threads) : null;
        pool?.install();
        try {
          await post(bodies[0]!); // warm-up (partitions, prepared statements, threads); not counted
          const queue = bodies.slice(1);
          const events = queue.reduce((n, b) => n + b.split("\n").length, 0);
          let next = 0;
          let notAccepted = 0;
          let unknownPrefix = 0;
          const started = performance.now();
          await Promise.all(
            Array.from({ length: concurrency }, async () => {
              for (let i = next++; i < queue.length; i = next++) {
                const r = await post(queue[i]!);
                notAccepted += r.notAccepted;
                unknownPrefix += r.unknownPrefix;
              }
            }),
          );
          out.push([threads, { rate: events / ((performance.now() - started) / 1000), notAccepted, unknownPrefix }]);
        } finally {
          await pool?.close();
        }
        const pg = serverEngine().pg!;
        await pg.$client.unsafe(`TRUNCATE ${INGEST_TABLES.join(", ")}`);
        forgetRecentRequests(pg);
      }
      return out;
    } finally {
      await serverEngine().pg?.$client.end({ timeout: 5 });
      await fresh.drop();
    }
  } finally {
    server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What the route refused as unknown_prefix, said as what it is (see benchPgRoute). */
const refusedPrefixes = (r: Result) =>
  r.unknownPrefix ? ` (${r.unknownPrefix} unknown_prefix: named a request of the body still in flight)` : "";

/**
 * bench:storage's `--engine`: a stream file's lines, in bodies of up to `batch` lines, through PostgreSQL's ingest route
 * handler (in a fresh database; must run last in a process, see benchPgRoute), printed beside the same run's figures.
 */
export async function pgRouteOnStream(
  file: string,
  batch: number,
  concurrency: number,
  baseline: { sqlite: number; raw: number },
): Promise<void> {
  const lines = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  const limit = 8 * 1024 * 1024 - 1024; // the route's body limit
  const bodies: string[] = [];
  for (let i = 0, size = 0, first = 0; i <= lines.length; i++) {
    const n = i < lines.length ? lines[i]!.length + 1 : 0;
    if (i === lines.length || i - first === batch || (i > first && size + n > limit)) {
      if (i > first) bodies.push(lines.slice(first, i).join("\n"));
      [first, size] = [i, 0];
    }
    size += n;
  }
  for (const [threads, r] of await benchPgRoute(bodies, concurrency))
    console.log(
      `ingest on postgres (route handler in this process, ${threads ? `${threads} ingest thread${threads > 1 ? "s" : ""}` : "inline"}, ${concurrency} bodies in flight): ${Math.round(r.rate)} events/s, ${(r.rate / baseline.sqlite).toFixed(2)}x sqlite's ingest above, ${(r.rate / baseline.raw).toFixed(3)}x raw inserts${r.notAccepted ? `; ${r.notAccepted} not accepted${refusedPrefixes(r)}` : ""}`,
    );
}

/**
 * Run each engine's store over the same events and print their events/s side by side; with the posted bodies given,
 * PostgreSQL is also timed through the ingest route's handler.
 */
export async function benchEngines(
  engines: readonly Engine[],
  events: readonly TelemetryEvent[],
  batch: number,
  concurrency: number,
  bodies?: readonly string[],
): Promise<void> {
  const rates: [string, number, Result][] = [];
  for (const engine of engines) {
    if (engine === "sqlite") rates.push([engine, 1, benchSqliteStore(events, batch)]);
    // One batch at a time is the like-for-like figure (SQLite's writes are serial); with several in flight a request
    // may name a prefix whose batch has not committed yet and is refused (the dashboard orders its writes).
    else for (const n of new Set([1, concurrency])) rates.push([engine, n, await benchPgStore(events, batch, n)]);
  }
  if (bodies && engines.includes("postgres"))
    for (const [threads, r] of await benchPgRoute(bodies, concurrency))
      rates.push([
        `postgres route${threads ? `, ${threads} ingest thread${threads > 1 ? "s" : ""}` : ", inline"}`,
        concurrency,
        r,
      ]);
  console.log(`engines: the same ${events.length} events through each store function, batches of ${batch}`);
  const base = rates.find(([e]) => e === "sqlite")?.[2].rate;
  for (const [engine, n, { rate, notAccepted }] of rates) {
    const vs = base && engine !== "sqlite" ? ` (${(rate / base).toFixed(2)}x sqlite)` : "";
    const how = n === 1 ? "one batch at a time" : `${n} batches in flight`;
    const refused = notAccepted ? `; ${notAccepted} not accepted (duplicates or refused prefixes)` : "";
    const what = engine.includes(" route") ? engine.replace(" route", " route handler") : `${engine} store`;
    console.log(`  ${what.padEnd(47)}: ${Math.round(rate)} events/s, ${how}${vs}${refused}`);
  }
}
