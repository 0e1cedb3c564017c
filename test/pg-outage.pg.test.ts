// One dashboard on a throwaway PostgreSQL server: it starts and serves without opening a SQLite file (trace imports
// and /metrics' gauges included), and when the server is stopped as a crash would stop it
// ingest answers 503 with Retry-After (never 500, never a reply claiming storage), a tRPC read answers an error, the
// process keeps running, and everything works again by itself once the server is back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg } from "../db/pg/client";
import { pgStore } from "../db/store/store";
import { freePort } from "../lib/free-port";
import { buildIfNeeded } from "../scripts/build-if-needed.mjs";
import { minimal } from "./events";
import { PG_TEST_URL } from "./pg";
import { pgBinDir, startThrowawayPg, type ThrowawayPg } from "./pg-server";
import { health, seedAccounts, spawnNode, stopAll, until, type Proc } from "./processes";
import { TEST_SECRET_KEY } from "./secret-key";

const INGEST_TOKEN = "pg-outage-ingest-token-0123456789abcdef";
const ADMIN_TOKEN = "pg-outage-admin-token-0123456789abcdefgh";

// Runs with the PostgreSQL suites (a throwaway server of its own: halting the shared test server would fail others).
describe.skipIf(!PG_TEST_URL || !pgBinDir())("a dashboard on PostgreSQL that goes away and comes back", () => {
  let server: ThrowawayPg;
  let dir: string;
  let port: number;
  const procs: Proc[] = [];

  beforeAll(async () => {
    buildIfNeeded();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-pg-outage-"));
    server = await startThrowawayPg({ durable: false });
    const pg = await openPg(server.url, { max: 1 });
    await seedAccounts(pgStore(pg), { adminToken: ADMIN_TOKEN, demoPassword: "pg-outage-demo-password" });
    await pg.$client.end({ timeout: 5 });
    port = await freePort();
  }, 900_000);

  afterAll(async () => {
    await stopAll(procs);
    server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let seq = 0;
  const post = (p: string, body: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`http://localhost:${port}${p}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson", ...headers },
      body,
      signal: AbortSignal.timeout(15_000),
    });
  const stats = () => JSON.stringify(minimal["worker.stats"]({ id: `outage-${seq++}`, ts: Date.now() }));
  const workersList = () => {
    const input = encodeURIComponent(JSON.stringify({ json: { from: Date.now() - 3_600_000, to: Date.now() } }));
    return fetch(`http://localhost:${port}/api/trpc/workers.list?input=${input}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: AbortSignal.timeout(15_000),
    });
  };

  it("serves, answers 503 with Retry-After and error states while PostgreSQL is down, and resumes by itself", async () => {
    const sqliteFile = path.join(dir, "never-opened.db");
    const dash = spawnNode(procs, "dashboard", [], {
      NODE_ENV: "production",
      PORT: String(port),
      SWITCHYARD_DATABASE_URL: server.url,
      SWITCHYARD_SECRET_KEY: TEST_SECRET_KEY,
      SWITCHYARD_DB: sqliteFile,
      SWITCHYARD_INGEST_TOKEN: INGEST_TOKEN,
      SWITCHYARD_LOG_LEVEL: "warn",
    });
    const first = await until("the dashboard to lead on PostgreSQL", 120_000, async () => {
      const h = await health(port, ADMIN_TOKEN);
      return h?.process?.leading ? h : null;
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n${dash.output()}`);
    });
    expect(first).toMatchObject({ engine: "postgresql", database: "ok" });
    expect(fs.existsSync(sqliteFile)).toBe(false);

    // Up: ingest stores, a page's read answers, /metrics reads its gauges from PostgreSQL and a trace import stores.
    const ok = await post("/api/ingest", stats(), INGEST_TOKEN);
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(((await ok.json()) as { items: { status: string }[] }).items[0]?.status).toBe("accepted");
    expect((await workersList()).status).toBe(200);
    const scraped = await fetch(`http://localhost:${port}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toMatch(/switchyard_ingest_events_total\{[^}]*result="accepted"/);
    expect(text).toMatch(/switchyard_database_size_bytes\{file="main"\} [1-9]/);
    const turn = {
      event: {
        schema: "dynamo.agent.trace.v1",
        event_type: "request_end",
        event_time_unix_ms: Date.now(),
        request: { request_id: "pg-outage-import-1", model: "m", input_tokens: 10, output_tokens: 1 },
      },
    };
    const imported = await post("/api/import", `${JSON.stringify(turn)}\n`, INGEST_TOKEN, {
      "content-type": "application/octet-stream",
      "x-switchyard-filename": "trace.jsonl",
    });
    expect(imported.status, await imported.clone().text()).toBe(200);
    expect(await imported.json()).toMatchObject({ records: 1, accepted: 1, fatal: null });

    server.halt();
    try {
      for (let i = 0; i < 5; i++) {
        const res = await post("/api/ingest", stats(), INGEST_TOKEN);
        expect(res.status, await res.clone().text()).toBe(503);
        expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(await res.text()).not.toMatch(/"accepted"/);
      }
      const read = await workersList();
      expect(read.status).toBeGreaterThanOrEqual(500);
      expect(JSON.stringify(await read.json())).toMatch(/error/);
      expect((await fetch(`http://localhost:${port}/api/health`)).status).toBe(503);
      // A scraper sees the target down for now (503, Retry-After), not a broken Switchyard (500).
      const down = await fetch(`http://localhost:${port}/metrics`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(down.status, await down.clone().text()).toBe(503);
      expect(down.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(dash.child.exitCode).toBeNull();
    } finally {
      server.resume();
    }

    // Back: without a restart, ingest stores again, the read answers and the process leads again.
    await until("ingest to store again", 60_000, async () => {
      const res = await post("/api/ingest", stats(), INGEST_TOKEN);
      return res.status === 200 ? res : null;
    });
    // A page's read answers again too (retried: on a loaded machine one read may outlast its 15 s timeout).
    await until("a page's read to answer again", 60_000, async () => {
      const res = await workersList().catch(() => null);
      return res?.status === 200 ? res : null;
    });
    const back = await until("the dashboard to lead again", 60_000, async () => {
      const h = await health(port, ADMIN_TOKEN);
      return h?.process?.leading && h.leader?.this_process ? h : null;
    });
    expect(back.process!.id).toBe(first.process!.id);
    expect(dash.child.exitCode, dash.output()).toBeNull();
    expect(dash.output()).not.toMatch(/uncaught|unhandled/i);
  }, 300_000);
});
