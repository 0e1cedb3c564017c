import { describe, expect, it } from "vitest";
import { getSource } from "../../db/queries/source-registry";
import { testCaller, testDb } from "../../test/db";
import { sourceReporter } from "../sources/status";

const NOW = 1_764_400_000_000;
const prometheus = (over: Record<string, unknown> = {}) => ({
  id: "vllm-a",
  name: "vLLM A",
  kind: "prometheus" as const,
  config: { url: "http://vllm-a:8000/metrics", kind: "vllm" as const },
  ...over,
});

describe("sources router", () => {
  it("adds, lists with status, edits and removes a source", async () => {
    const db = testDb();
    const api = testCaller(db, () => NOW);
    await api.sources.upsert({ source: prometheus(), create: true });
    let [row] = await api.sources.list();
    expect(row).toMatchObject({
      id: "vllm-a",
      kind: "prometheus",
      address: "http://vllm-a:8000/metrics",
      state: "never",
      enabled: true,
      origin: "ui",
      configured: true,
    });

    sourceReporter(db, "vllm-a", "prometheus").ok(NOW + 1, {
      series: 42,
      events: 1,
      durationMs: 12,
      missing: ["vllm:num_requests_waiting"],
    });
    [row] = await api.sources.list();
    expect(row).toMatchObject({
      state: "ok",
      series: 42,
      eventsTotal: 1,
      durationMs: 12,
      missing: ["vllm:num_requests_waiting"],
      lastSuccessAt: NOW + 1,
    });
    sourceReporter(db, "vllm-a", "prometheus").error(NOW + 2, "HTTP 503");
    [row] = await api.sources.list();
    expect(row).toMatchObject({ state: "error", lastError: "HTTP 503", errorCount: 1, series: 42 });

    await api.sources.upsert({
      source: prometheus({
        name: "renamed",
        enabled: false,
        config: { url: "http://vllm-b:8000/metrics", kind: "auto", interval_seconds: 5 },
      }),
    });
    [row] = await api.sources.list();
    expect(row).toMatchObject({
      name: "renamed",
      state: "disabled",
      address: "http://vllm-b:8000/metrics",
      config: { interval_seconds: 5 },
      errorCount: 1,
    });

    await api.sources.remove({ id: "vllm-a" });
    expect(await api.sources.list()).toEqual([]);
    await expect(api.sources.remove({ id: "vllm-a" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lists implicit sources (OTLP, trace uploads) after configured ones", async () => {
    const db = testDb();
    const api = testCaller(db, () => NOW);
    await api.sources.upsert({ source: prometheus() });
    sourceReporter(db, "otlp", "otlp", "Harness OTLP logs").ok(NOW, { events: 7 });
    expect((await api.sources.list()).map((s) => [s.id, s.configured, s.address, s.state])).toEqual([
      ["vllm-a", true, "http://vllm-a:8000/metrics", "never"],
      ["otlp", false, "POST /api/otlp/v1/logs", "ok"],
    ]);
  });

  it.each([
    [{ config: { url: "ftp://x", kind: "vllm" } }, "config.url"],
    [{ config: { url: "http://x/metrics", kind: "tgi" } }, "config.kind"],
    [{ config: { url: "http://x/metrics", interval_seconds: 0 } }, "config.interval_seconds"],
    [{ id: "Bad Id!" }, "id"],
    [{ name: "" }, "name"],
    [{ kind: "zmq-kv", config: { endpoint: "http://nope" } }, "config.endpoint"],
    [{ kind: "trace-dir", config: {} }, "config.path"],
  ])("rejects %j naming %s, keeping what is stored", async (over, field) => {
    const db = testDb();
    const api = testCaller(db, () => NOW);
    await api.sources.upsert({ source: prometheus() });
    const error = await api.sources.upsert({ source: prometheus(over) as never }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "BAD_REQUEST" });
    expect(JSON.stringify(error)).toContain(field.split(".").at(-1));
    expect(getSource(db, "vllm-a")!.config).toEqual({
      url: "http://vllm-a:8000/metrics",
      kind: "vllm",
      interval_seconds: 15,
    });
  });

  it("create refuses an existing id and a kind cannot change in place", async () => {
    const api = testCaller(testDb(), () => NOW);
    await api.sources.upsert({ source: prometheus(), create: true });
    await expect(api.sources.upsert({ source: prometheus(), create: true })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await expect(
      api.sources.upsert({ source: { id: "vllm-a", name: "x", kind: "trace-dir", config: { path: "/t" } } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("remove it to change its kind") });
  });

  it("viewers read, only operators change", async () => {
    const db = testDb();
    const viewer = testCaller(db, () => NOW, { kind: "user", id: 2, name: "v", role: "viewer" });
    const operator = testCaller(db, () => NOW, { kind: "user", id: 3, name: "o", role: "operator" });
    await expect(viewer.sources.upsert({ source: prometheus() })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await operator.sources.upsert({ source: prometheus() });
    expect(await viewer.sources.list()).toHaveLength(1);
    await expect(viewer.sources.remove({ id: "vllm-a" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(testCaller(db, () => NOW, null).sources.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("sources.storage", () => {
  it("reports the database size and the oldest row kept per kind", async () => {
    const { storeEvents } = await import("../../db/queries/ingest");
    const { minimal, parsed, T0 } = await import("../../test/events");
    const fs = await import("node:fs");
    const os = await import("node:os");
    const path = await import("node:path");
    const { openDb } = await import("../../db/client");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-storage-"));
    const db = openDb(path.join(dir, "s.db"));
    try {
      storeEvents(db, [
        parsed(minimal.request({ id: "r1", ts: T0 + 5, arrived_at: T0 })),
        parsed(minimal["kv.stored"]({ id: "k1", ts: T0 + 1_000 })),
      ]);
      const s = await testCaller(db, () => NOW).sources.storage();
      expect(s.fileBytes + s.walBytes).toBe(s.totalBytes);
      expect(s.totalBytes).toBe(
        fs.statSync(path.join(dir, "s.db")).size + fs.statSync(path.join(dir, "s.db-wal")).size,
      );
      expect(s.totalBytes).toBeGreaterThan(0);
      const byTable = Object.fromEntries(s.kinds.map((k) => [k.table, k]));
      expect(byTable.requests).toMatchObject({ label: "Requests", oldest: T0, keptFor: "30 days" });
      expect(byTable.kv_events).toMatchObject({ oldest: T0 + 1_000, keptFor: "24 h" });
      expect(byTable.requests_1m).toMatchObject({ oldest: T0, keptFor: "400 days" });
      expect(byTable.tools).toMatchObject({ oldest: null });
    } finally {
      db.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
