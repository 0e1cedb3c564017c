import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../db/sqlite/client";
import { insertUser } from "../../db/store/accounts";
import { putStatus } from "../../db/store/control";
import { attributionTables } from "../../db/store/observability";
import { upsertSource } from "../../db/store/sources";
import type { Store } from "../../db/store/store";
import { minimal, T0 } from "../../test/events";
import { freshPg, PG_TEST_URL } from "../../test/pg";
import { startSession } from "../auth/sign-in-sessions";
import { createToken } from "../auth/tokens";
import { upsertTarget } from "../control/publish";
import { pgSink, sqliteSink } from "../sources/sink";
import { sourceReporter, type SourceSink } from "../sources/status";
import { recordIngest } from "./metrics";
import { metricsReply } from "./metrics-endpoint";

// GET /metrics on an engine, written once: metrics-endpoint.test.ts runs it on SQLite, metrics-endpoint.pg.test.ts
// on PostgreSQL, reading the same families (ingest counters, attribution lag, rollout state, sources, size).

export type Opened = { sink: SourceSink; sqliteFile: string | null; close: () => Promise<void> };
export type MetricsEngine = { engine: "SQLite" | "PostgreSQL"; skip: boolean; open: () => Promise<Opened> };

/** A new SQLite file (its size is one of the gauges). */
export const SQLITE_METRICS: MetricsEngine = {
  engine: "SQLite",
  skip: false,
  open: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-metrics-"));
    const file = path.join(dir, "db.sqlite");
    const db = openDb(file);
    return {
      sink: sqliteSink(db),
      sqliteFile: db.$client.name,
      close: async () => {
        db.$client.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** A new database on the PostgreSQL test server (skipped without SWITCHYARD_TEST_DATABASE_URL). */
export const POSTGRES_METRICS: MetricsEngine = {
  engine: "PostgreSQL",
  skip: !PG_TEST_URL,
  open: async () => {
    const { pg, drop } = await freshPg();
    return { sink: pgSink(pg), sqliteFile: null, close: drop };
  },
};

type Family = {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
};
/** The families of a Prometheus text body. */
export const families = (body: string) => parsePrometheusTextFormat(body) as Family[];
const sample = (fs_: Family[], name: string, labels: Record<string, string> = {}) =>
  fs_.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

const NOW = T0 + 3_600_000;

/** Save the attribution job's requests cursor at the insertion number of request event `id`. */
async function cursorAt(s: Store, id: string): Promise<void> {
  const { state, requests } = attributionTables(s);
  const [row] = await s.db.select({ rid: requests.rid }).from(requests).where(eq(requests.id, id));
  await s.db
    .insert(state)
    .values({ key: "requests", value: row!.rid })
    .onConflictDoUpdate({ target: state.key, set: { value: row!.rid } });
}

export function metricsCases(e: MetricsEngine): void {
  describe.skipIf(e.skip)(`GET /metrics on ${e.engine}`, () => {
    let opened: Opened;
    let s: Store;
    const reply = (headers: { authorization?: string; cookie?: string }) =>
      metricsReply(s, opened.sqliteFile, headers, NOW);
    beforeAll(async () => {
      opened = await e.open();
      s = opened.sink.store;
    });
    afterAll(async () => {
      await opened?.close();
    });

    it.each<[string, (s: Store) => Promise<{ authorization?: string; cookie?: string }>, number]>([
      ["no credentials", async () => ({}), 401],
      ["a wrong token", async () => ({ authorization: "Bearer sy_wrong_0123456789abcdef" }), 401],
      [
        "an ingest-scope token",
        async (st) => ({
          authorization: `Bearer ${(await createToken(st, { name: "sender", scope: "ingest", createdBy: "t" }, NOW)).token}`,
        }),
        401,
      ],
      ["a stale session cookie", async () => ({ cookie: "sy_session=not-a-session" }), 401],
    ])("refuses %s", async (_name, headers, status) => {
      const r = await reply(await headers(s));
      expect(r.status).toBe(status);
      expect(r.headers["www-authenticate"]).toBe("Bearer");
      expect(r.body).not.toContain("switchyard_");
    });

    it("answers a read-scope token and a signed-in session", async () => {
      const { token } = await createToken(s, { name: "prometheus", scope: "read", createdBy: "t" }, NOW);
      expect((await reply({ authorization: `Bearer ${token}` })).status).toBe(200);
      const userId = await insertUser(s, { username: "viewer1", role: "viewer", passwordHash: null }, NOW);
      const session = await startSession(s, userId, NOW, 3_600_000);
      const r = await reply({ cookie: `sy_session=${session.value}` });
      expect(r.status).toBe(200);
      expect(r.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(r.headers).toMatchObject({ "X-Content-Type-Options": "nosniff", "cache-control": "no-store" });
    });

    it("reports ingest by kind and sender, attribution lag from the cursors, rollout state per target, source errors and database size", async () => {
      // Ten requests arriving a second apart; the attribution job has read the first four.
      const reqs = Array.from({ length: 10 }, (_, i) =>
        minimal.request({ id: `m-r${i}`, request_id: `m-r${i}`, arrived_at: T0 + i * 1000 }),
      );
      expect((await opened.sink.submit(reqs)).accepted).toBe(10);
      await cursorAt(s, "m-r3");
      recordIngest(
        "sim-1",
        { request: { accepted: 10, duplicate: 2, rejected: 0 }, unknown: { accepted: 0, duplicate: 0, rejected: 1 } },
        0.02,
        "api",
      );
      await upsertTarget(
        s,
        {
          id: "sim",
          name: "Sim",
          cluster: "default",
          adapter: "sim",
          config: { url: "http://127.0.0.1:1" },
          kinds: ["routing"],
          enabled: true,
        },
        "t",
        NOW,
      );
      await putStatus(s, {
        targetId: "sim",
        kind: "routing",
        desiredVersion: 2,
        appliedVersion: 1,
        appliedAt: null,
        state: "unreachable",
        message: "ECONNREFUSED",
        errors: null,
        attempts: 3,
        nextRetryAt: NOW + 5000,
        updatedAt: NOW,
      });
      await upsertSource(
        s,
        {
          id: "vllm-a",
          kind: "prometheus",
          name: "vLLM A",
          config: { url: "http://vllm-a/metrics", kind: "vllm" },
          enabled: true,
        },
        NOW,
      );
      const report = sourceReporter(s, "vllm-a", "prometheus");
      await report.ok(NOW + 1, { series: 3, events: 1 });
      await report.error(NOW + 2, "HTTP 503");
      await report.error(NOW + 3, "HTTP 503");

      const { token } = await createToken(s, { name: "prom2", scope: "read", createdBy: "t" }, NOW);
      const f = families((await reply({ authorization: `Bearer ${token}` })).body);
      expect(
        sample(f, "switchyard_ingest_events_total", { kind: "request", source: "sim-1", result: "accepted" })?.value,
      ).toBe("10");
      expect(
        sample(f, "switchyard_ingest_events_total", { kind: "request", source: "sim-1", result: "duplicate" })?.value,
      ).toBe("2");
      expect(
        sample(f, "switchyard_ingest_events_total", { kind: "unknown", source: "sim-1", result: "rejected" })?.value,
      ).toBe("1");
      expect(f.find((x) => x.name === "switchyard_ingest_batch_duration_seconds")?.type).toBe("HISTOGRAM");
      expect(sample(f, "switchyard_attribution_lag_seconds")?.value).toBe("5");
      expect(sample(f, "switchyard_attribution_backlog_requests")?.value).toBe("6");
      expect(
        sample(f, "switchyard_policy_rollout_state", { target: "sim", kind: "routing", state: "unreachable" })?.value,
      ).toBe("1");
      expect(
        sample(f, "switchyard_policy_rollout_state", { target: "sim", kind: "routing", state: "in_sync" })?.value,
      ).toBe("0");
      expect(sample(f, "switchyard_source_errors", { source: "vllm-a" })?.value).toBe("2");
      expect(sample(f, "switchyard_source_up", { source: "vllm-a" })?.value).toBe("0");
      expect(Number(sample(f, "switchyard_database_size_bytes", { file: "main" })?.value)).toBeGreaterThan(4096);
      // Only the default cluster: these events named none.
      expect(sample(f, "switchyard_clusters")?.value).toBe("1");

      await cursorAt(s, "m-r9");
      const caughtUp = families((await reply({ authorization: `Bearer ${token}` })).body);
      expect(sample(caughtUp, "switchyard_attribution_lag_seconds")?.value).toBe("0");
      expect(sample(caughtUp, "switchyard_attribution_backlog_requests")?.value).toBe("0");
    });
  });
}
