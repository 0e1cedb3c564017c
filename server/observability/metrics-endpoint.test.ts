import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../db/client";
import { insertUser } from "../../db/store/accounts";
import { putStatus } from "../../db/store/control";
import { upsertTarget } from "../control/store";
import { setCursor } from "../../db/queries/attribution";
import { upsertSource } from "../../db/store/sources";
import { minimal, ndjson, T0 } from "../../test/events";
import { startSession } from "../auth/sessions";
import { sqliteStore } from "../../db/store/store";
import { createToken } from "../auth/tokens";
import { ingestBody } from "../ingest/ingest";
import { sourceReporter } from "../sources/status";
import { recordIngest } from "./metrics";
import { metricsReply } from "./metrics-endpoint";

let dir: string;
let db: Db;
const NOW = T0 + 3_600_000;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-metrics-"));
  db = openDb(path.join(dir, "db.sqlite"));
});

afterAll(() => {
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Family = {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
};
const families = (body: string) => parsePrometheusTextFormat(body) as Family[];
const sample = (fs_: Family[], name: string, labels: Record<string, string> = {}) =>
  fs_.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

describe("GET /metrics", () => {
  it.each<[string, () => Promise<{ authorization?: string; cookie?: string }>, number]>([
    ["no credentials", async () => ({}), 401],
    ["a wrong token", async () => ({ authorization: "Bearer sy_wrong_0123456789abcdef" }), 401],
    [
      "an ingest-scope token",
      async () => ({
        authorization: `Bearer ${(await createToken(sqliteStore(db), { name: "sender", scope: "ingest", createdBy: "t" }, NOW)).token}`,
      }),
      401,
    ],
    ["a stale session cookie", async () => ({ cookie: "sy_session=not-a-session" }), 401],
  ])("refuses %s", async (_name, headers, status) => {
    const reply = await metricsReply(null, db, await headers(), NOW);
    expect(reply.status).toBe(status);
    expect(reply.headers["www-authenticate"]).toBe("Bearer");
    expect(reply.body).not.toContain("switchyard_");
  });

  it("answers a read-scope token and a signed-in session", async () => {
    const { token } = await createToken(sqliteStore(db), { name: "prometheus", scope: "read", createdBy: "t" }, NOW);
    expect((await metricsReply(null, db, { authorization: `Bearer ${token}` }, NOW)).status).toBe(200);
    const userId = await insertUser(sqliteStore(db), { username: "viewer1", role: "viewer", passwordHash: null }, NOW);
    const session = await startSession(sqliteStore(db), userId, NOW, 3_600_000);
    const reply = await metricsReply(null, db, { cookie: `sy_session=${session.value}` }, NOW);
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(reply.headers).toMatchObject({ "X-Content-Type-Options": "nosniff", "cache-control": "no-store" });
  });

  it("reports ingest by kind and sender, attribution lag from the cursors, rollout state per target, source errors and database size", async () => {
    // Ten requests arriving a second apart; the attribution job has read the first four.
    const reqs = Array.from({ length: 10 }, (_, i) =>
      minimal.request({ id: `m-r${i}`, request_id: `m-r${i}`, arrived_at: T0 + i * 1000 }),
    );
    expect(ingestBody(db, ndjson(reqs), "application/x-ndjson").accepted).toBe(10);
    const rowid = (id: string) =>
      db.$client.prepare("SELECT rowid FROM requests WHERE id = ?").pluck().get(id) as number;
    setCursor(db, "requests", rowid("m-r3"));
    recordIngest(
      "sim-1",
      { request: { accepted: 10, duplicate: 2, rejected: 0 }, unknown: { accepted: 0, duplicate: 0, rejected: 1 } },
      0.02,
      "api",
    );
    await upsertTarget(
      sqliteStore(db),
      {
        id: "sim",
        name: "Sim",
        adapter: "sim",
        config: { url: "http://127.0.0.1:1" },
        kinds: ["routing"],
        enabled: true,
      },
      "t",
      NOW,
    );
    await putStatus(sqliteStore(db), {
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
      sqliteStore(db),
      {
        id: "vllm-a",
        kind: "prometheus",
        name: "vLLM A",
        config: { url: "http://vllm-a/metrics", kind: "vllm" },
        enabled: true,
      },
      NOW,
    );
    const report = sourceReporter(sqliteStore(db), "vllm-a", "prometheus");
    await report.ok(NOW + 1, { series: 3, events: 1 });
    await report.error(NOW + 2, "HTTP 503");
    await report.error(NOW + 3, "HTTP 503");

    const { token } = await createToken(sqliteStore(db), { name: "prom2", scope: "read", createdBy: "t" }, NOW);
    const reply = await metricsReply(null, db, { authorization: `Bearer ${token}` }, NOW);
    const f = families(reply.body);
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

    setCursor(db, "requests", rowid("m-r9"));
    const caughtUp = families((await metricsReply(null, db, { authorization: `Bearer ${token}` }, NOW)).body);
    expect(sample(caughtUp, "switchyard_attribution_lag_seconds")?.value).toBe("0");
    expect(sample(caughtUp, "switchyard_attribution_backlog_requests")?.value).toBe("0");
  });

  it("is valid Prometheus text (promtool check metrics when installed)", async () => {
    const { token } = await createToken(sqliteStore(db), { name: "prom3", scope: "read", createdBy: "t" }, NOW);
    const { body } = await metricsReply(null, db, { authorization: `Bearer ${token}` }, NOW);
    expect(families(body).length).toBeGreaterThan(10);
    const promtool = spawnSync("sh", ["-c", "command -v promtool"], { encoding: "utf8" }).stdout.trim();
    if (!promtool) return;
    // promtool exits non-zero on a format error or a lint problem, printing what it found.
    expect(() =>
      execFileSync(promtool, ["check", "metrics"], { input: body, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] }),
    ).not.toThrow();
  });
});
