// `npm run bench:storage [-- --minutes N] [--full-chains] [--cpu-prof DIR] [--keep-db FILE] [--engine E]`: the steady scenario generated at full speed by the
// simulator, posted as the simulator sends it (compact chains with prefix_of; --full-chains: full lists) through the
// real /api/ingest of a real dashboard process into a fresh database, then attribution to completion.
// --cpu-prof DIR: the dashboard process writes CPU profiles of its threads there (node --cpu-prof). --keep-db FILE:
// a copy of the ingested database (e.g. to replay attribution over it with scripts/replay-attribution.ts).
// --engine postgres|both: the same stream also posted over HTTP to a dashboard process on PostgreSQL (a fresh database on
// SWITCHYARD_TEST_DATABASE_URL's server, else a throwaway durable one), then through PostgreSQL's ingest route handler
// in this process (bench-ingest-engines.ts), last, beside SQLite's ingest of this run (SQLite runs in every case: it is
// the baseline).
// Prints storage per simulated hour and per request, every table's and index's size, ingest rate and attribution speed, each beside a baseline
// measured in the same run (the machine may be busy: compare the ratios).
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { runAttribution } from "../server/jobs/attribution";
import { buildAllIfNeeded } from "./build-if-needed.mjs";
import { sizeLines, tableSizes, type Size } from "./db-sizes";
import { cpuByRole, threadCpu } from "./thread-cpu";
import { postNdjson } from "./post-ndjson";
import { clearedCopy } from "./replay-attribution";
import { fullLine, writeSimStream, type SimStream } from "./sim-stream";
import { pgRouteOnStream, takeEngineOption } from "./bench-ingest-engines";
import { exited, processCpu, startDashboard, TOKEN } from "./dashboard-process";
import { pgDashboardIngest } from "./bench-storage-pg";

const BATCH = 1_000;
const BODY_LIMIT = 8 * 1024 * 1024 - 1024;
const CONCURRENCY = 2;
const MiB = 1024 * 1024;

function minutesArg(argv: readonly string[]): number {
  const i = argv.indexOf("--minutes");
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith("--minutes="))?.slice(10);
  const n = raw === undefined ? 60 : Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 24 * 60)
    throw new Error("--minutes takes a number of simulated minutes (0 < N ≤ 1440)");
  return n;
}

function keepDbArg(argv: readonly string[]): string | null {
  const i = argv.indexOf("--keep-db");
  if (i < 0) return null;
  const file = argv[i + 1];
  if (!file || file.startsWith("--")) throw new Error("--keep-db takes a file to copy the database to");
  return path.resolve(file);
}

function cpuProfArg(argv: readonly string[]): string | null {
  const i = argv.indexOf("--cpu-prof");
  if (i < 0) return null;
  const dir = argv[i + 1];
  if (!dir || dir.startsWith("--")) throw new Error("--cpu-prof takes a folder for the profiles");
  return path.resolve(dir);
}

/** A body to post: whole NDJSON lines, `count` of them (blank lines aside), the first being line `first` of the file. */
type Body = { bytes: Buffer; count: number; first: number };

/**
 * NDJSON bodies of up to BATCH lines (and under the request size limit), read from the file in large chunks and cut
 * at newlines without decoding: the sender shares the machine with the dashboard, so it should cost little.
 */
function* bodies(file: string): Generator<Body> {
  const fd = fs.openSync(file, "r");
  try {
    let buf = Buffer.alloc(0);
    let first = 0;
    let eof = false;
    for (;;) {
      let at = 0;
      let count = 0;
      let cut = false;
      for (;;) {
        if (count === BATCH) {
          cut = true;
          break;
        }
        const nl = buf.indexOf(10, at);
        if (nl === -1) break;
        if (count > 0 && nl + 1 > BODY_LIMIT) {
          cut = true;
          break;
        }
        if (nl > at) count++;
        at = nl + 1;
      }
      if (cut || (eof && at > 0)) {
        if (count > 0) yield { bytes: buf.subarray(0, at), count, first };
        first += count;
        buf = buf.subarray(at);
        continue;
      }
      if (eof) {
        if (buf.some((c) => c !== 10 && c !== 13 && c !== 32)) yield { bytes: buf, count: 1, first };
        return;
      }
      const chunk = Buffer.allocUnsafe(Math.max(16 * MiB, buf.length * 2));
      buf.copy(chunk, 0);
      const n = fs.readSync(fd, chunk, buf.length, chunk.length - buf.length, null);
      eof = n === 0;
      buf = chunk.subarray(0, buf.length + n);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Lines in bodies of up to BATCH lines and under the request size limit. */
function chunked(lines: string[]): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let size = 0;
  for (const l of lines) {
    if (cur.length === BATCH || (cur.length > 0 && size + l.length + 1 > BODY_LIMIT)) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(l);
    size += l.length + 1;
  }
  if (cur.length) out.push(cur);
  return out;
}

type Reply = {
  accepted: number;
  duplicate: number;
  rejected: number;
  items: { status: string; error?: string; code?: string }[];
};

/**
 * Post every line of the stream, CONCURRENCY bodies in flight. A compact request refused as unknown_prefix (its prefix
 * was in a body still in flight) is answered as the simulator's delivery does: its full-list line goes in a later body.
 */
async function ingest(
  url: string,
  stream: SimStream,
): Promise<{ events: number; bytes: number; seconds: number; resent: number }> {
  const fd = fs.openSync(stream.fullFile, "r");
  const resend: string[] = [];
  let resent = 0;
  let bytes = 0;
  let accepted = 0;
  const post = async (body: Buffer | string, first: number | null): Promise<void> => {
    bytes += Buffer.byteLength(body);
    const res = await postNdjson(`${url}/api/ingest`, body, {
      authorization: `Bearer ${TOKEN}`,
      "x-switchyard-source": "sim",
    });
    const reply = JSON.parse(res.text) as Reply;
    if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${res.text.slice(0, 300)}`);
    accepted += reply.accepted;
    reply.items.forEach((it, i) => {
      if (it.status !== "rejected") return;
      const full = it.code === "unknown_prefix" && first !== null ? fullLine(stream, fd, first + i) : null;
      if (full === null) throw new Error(`event rejected: ${JSON.stringify(it).slice(0, 300)}`);
      resend.push(full);
      resent++;
    });
  };
  const inFlight = new Set<Promise<void>>();
  const send = async (body: Buffer | string, first: number | null) => {
    const p: Promise<void> = post(body, first).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
  };
  const started = performance.now();
  try {
    for (const { bytes: body, first } of bodies(stream.file)) {
      for (const again of chunked(resend.splice(0))) await send(again.join("\n"), null);
      await send(body, first);
    }
    while (inFlight.size || resend.length) {
      await Promise.all(inFlight);
      for (const again of chunked(resend.splice(0))) await send(again.join("\n"), null);
    }
  } finally {
    fs.closeSync(fd);
  }
  if (accepted !== stream.events) throw new Error(`${accepted} events accepted of the ${stream.events} sent`);
  return { events: stream.events, bytes, seconds: (performance.now() - started) / 1000, resent };
}

/** Poll the database until the attribution job has judged every request and applied every KV event. */
async function attributed(dbFile: string, timeoutMs: number): Promise<boolean> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const end = Date.now() + timeoutMs;
    const q = db
      .prepare(
        `SELECT (SELECT coalesce(max(rowid), 0) FROM requests) <= coalesce((SELECT value FROM attr_state WHERE key = 'requests'), 0)
          AND (SELECT coalesce(max(rowid), 0) FROM kv_events) <= coalesce((SELECT value FROM attr_state WHERE key = 'kv'), 0)`,
      )
      .pluck();
    while (Date.now() < end) {
      if (q.get() === 1) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  } finally {
    db.close();
  }
}

/** Baseline: the same NDJSON lines inserted raw (one blob row each, 1,000 per transaction) with better-sqlite3. */
async function rawInsertRate(file: string, dir: string): Promise<number> {
  const db = new Database(path.join(dir, "raw.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE raw (id INTEGER PRIMARY KEY, line BLOB NOT NULL)");
  const ins = db.prepare("INSERT INTO raw (line) VALUES (?)");
  const tx = db.transaction((lines: Buffer[]) => {
    for (const l of lines) ins.run(l);
  });
  let events = 0;
  let spent = 0;
  for (const { bytes } of bodies(file)) {
    const lines: Buffer[] = [];
    for (let at = 0, nl = bytes.indexOf(10); at < bytes.length; at = nl + 1, nl = bytes.indexOf(10, at)) {
      const end = nl === -1 ? bytes.length : nl;
      if (end > at) lines.push(bytes.subarray(at, end));
      if (nl === -1) break;
    }
    const t = performance.now();
    tx(lines);
    spent += performance.now() - t;
    events += lines.length;
  }
  db.close();
  return events / (spent / 1000);
}

/**
 * Attribution alone on a copy of the database (index and causes cleared and VACUUMed, as replay-attribution.ts does),
 * with a raw read of its input as the baseline; wall and CPU seconds (on a shared machine the CPU figure is steadier).
 */
function attributionAlone(
  dbFile: string,
  dir: string,
): { seconds: number; cpuSeconds: number; rawReadSeconds: number; chainMiB: number } {
  const copy = path.join(dir, "attr.db");
  const db = clearedCopy(dbFile, copy);
  let t = performance.now();
  let chars = 0;
  for (const r of db.$client.prepare("SELECT block_hashes AS h FROM kv_events").iterate() as Iterable<{
    h: string | null;
  }>)
    chars += r.h?.length ?? 0;
  for (const r of db.$client
    .prepare("SELECT sequence_hashes AS s, local_hashes AS l FROM requests")
    .iterate() as Iterable<{ s: unknown; l: unknown }>)
    chars += String(r.s ?? "").length + String(r.l ?? "").length;
  const rawReadSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const cpu0 = process.cpuUsage();
  const run = runAttribution(db);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t) / 1000;
  if (!run.caughtUp) throw new Error("attribution did not finish");
  db.$client.close();
  fs.rmSync(copy, { force: true });
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rawReadSeconds, chainMiB: chars / MiB };
}

async function main() {
  const { engines } = takeEngineOption(process.argv.slice(2));
  const minutes = minutesArg(process.argv.slice(2));
  const fullChains = process.argv.includes("--full-chains");
  const cpuProf = cpuProfArg(process.argv.slice(2));
  const simSeconds = Math.round(minutes * 60);
  await buildAllIfNeeded();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-storage-"));
  const simFile = path.join(dir, "steady.ndjson");
  const fullFile = path.join(dir, "steady-full-lines.ndjson");
  const dbFile = path.join(dir, "switchyard.db");
  let server: ChildProcess | null = null;
  try {
    const startMs = Math.floor(Date.now() / 60_000) * 60_000 - simSeconds * 1000 - 60_000;
    const stream = await writeSimStream({
      file: simFile,
      fullFile,
      scenario: "steady",
      seed: 1,
      startMs,
      seconds: simSeconds,
      fullChains,
    });
    const dash = await startDashboard({ SWITCHYARD_DB: dbFile }, cpuProf);
    server = dash.child;
    const url = dash.url;
    const cpu0 = processCpu(server.pid!);
    const pid = server.pid!;
    const threads0 = threadCpu(pid);
    const sender0 = process.cpuUsage();
    const started = performance.now();
    const ing = await ingest(url, stream);
    const afterIngest = performance.now();
    const cpu1 = processCpu(server.pid!);
    const threads1 = threadCpu(pid);
    const senderCpu = process.cpuUsage(sender0);
    if (!(await attributed(dbFile, 30 * 60_000))) throw new Error("attribution did not catch up within 30 minutes");
    const liveSeconds = (performance.now() - started) / 1000;
    const tailSeconds = (performance.now() - afterIngest) / 1000;
    server.kill("SIGTERM");
    await exited(server);
    server = null;

    const db = new Database(dbFile);
    db.pragma("wal_checkpoint(TRUNCATE)");
    const requests = db.prepare("SELECT count(*) FROM requests").pluck().get() as number;
    let tables: Size[] = [];
    try {
      tables = tableSizes(db);
    } catch {}
    db.close();
    const keep = keepDbArg(process.argv.slice(2));
    if (keep) fs.copyFileSync(dbFile, keep);
    const dbBytes = fs.statSync(dbFile).size + (fs.existsSync(`${dbFile}-wal`) ? fs.statSync(`${dbFile}-wal`).size : 0);
    const ndjsonBytes = fs.statSync(simFile).size;

    const alone = attributionAlone(dbFile, dir);
    const raw = await rawInsertRate(simFile, dir);
    const hours = simSeconds / 3600;
    const rate = ing.events / ing.seconds;
    console.log(
      `scenario: steady, ${minutes} simulated min, ${ing.events} events, ${requests} requests, ${(ndjsonBytes / MiB).toFixed(1)} MiB of NDJSON as the simulator sends it (${fullChains ? "full lists" : `compact chains: ${stream.fallbacks.size} requests with prefix_of, ${ing.resent} re-sent in full after unknown_prefix`})`,
    );
    console.log(
      `db: ${(dbBytes / 1e6 / hours).toFixed(1)} MB per simulated hour (target ≤ 50; ${(dbBytes / 1e6).toFixed(1)} MB; baseline NDJSON ${(ndjsonBytes / 1e6 / hours).toFixed(1)} MB per hour, ratio ${(dbBytes / ndjsonBytes).toFixed(3)})`,
    );
    console.log(`per request: ${Math.round(dbBytes / Math.max(1, requests))} bytes`);
    console.log(
      `ingest: ${Math.round(rate)} events/s (target ≥ 30,000; ${(ing.bytes / MiB / ing.seconds).toFixed(1)} MiB/s); baseline raw inserts of the same lines ${Math.round(raw)} events/s, ratio ${(rate / raw).toFixed(3)}`,
    );
    if (cpu0 !== null && cpu1 !== null)
      console.log(
        `ingest CPU: dashboard ${(cpu1 - cpu0).toFixed(1)} s (${Math.round(ing.events / Math.max(0.01, cpu1 - cpu0))} events per CPU-second, all its threads), sender ${((senderCpu.user + senderCpu.system) / 1e6).toFixed(1)} s, over ${ing.seconds.toFixed(1)} s of wall time`,
      );
    if (threads1.size) console.log(`ingest CPU by dashboard thread: ${cpuByRole(pid, threads0, threads1)}`);
    console.log(
      `attribution: ${(simSeconds / alone.seconds).toFixed(0)} x real time (alone, ${alone.seconds.toFixed(1)} s, ${alone.cpuSeconds.toFixed(1)} CPU s; baseline: reading its input, ${alone.chainMiB.toFixed(0)} MiB of chains, ${alone.rawReadSeconds.toFixed(1)} s; ratio ${(alone.seconds / Math.max(0.001, alone.rawReadSeconds)).toFixed(1)})`,
    );
    console.log(
      `attribution in the dashboard's worker: caught up ${tailSeconds.toFixed(1)} s after ingest ended; ${(simSeconds / liveSeconds).toFixed(0)} x real time from the first post`,
    );
    for (const line of sizeLines(tables)) console.log(line);
    if (engines?.includes("postgres")) {
      await pgDashboardIngest(ingest, stream, dir, { sqlite: rate, raw }, cpuProf);
      await pgRouteOnStream(simFile, BATCH, CONCURRENCY, { sqlite: rate, raw });
    }
  } finally {
    if (server) {
      server.kill("SIGTERM");
      await exited(server);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
