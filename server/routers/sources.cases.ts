import fs from "node:fs";
import path from "node:path";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { afterAll, expect, describe, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { getSource } from "../../db/store/sources";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { minimal, parsed, T0 } from "../../test/events";
import type { Actor } from "../auth/roles";
import { useTempFolders } from "../files/test-support";
import { sourceReporter } from "../sources/status";
import { createCaller } from "../trpc/root";

// The sources procedures, written once and run on each engine (sources.test.ts: SQLite; sources.pg.test.ts:
// PostgreSQL): the registry, status, bad input and the storage card from either.

const NOW = 1_764_400_000_000;
// Set before the settings are first read: trace-dir sources are folder names inside folders.imports.
const folders = useTempFolders();
const prometheus = (over: Record<string, unknown> = {}) => ({
  id: "vllm-a",
  name: "vLLM A",
  kind: "prometheus" as const,
  config: { url: "http://vllm-a:8000/metrics", kind: "vllm" as const },
  ...over,
});

export function sourcesCases(engine: PageEngine) {
  const opened: PageStore[] = [];
  const open = async (raws: Parameters<typeof parsed>[0][] = []) => {
    const p = await engine.seeded(raws.map(parsed));
    opened.push(p);
    // A caller over the store alone (no SQLite connection), acting as `actor`.
    const as = (actor: Actor | null) => createCaller({ store: p.store, now: () => NOW, actor });
    return { api: p.caller(() => NOW), store: p.store, as };
  };
  afterAll(() => Promise.all(opened.map((p) => p.close())), 120_000);

  describe.skipIf(engine.skip)(`${engine.engine}: sources router`, () => {
    it("adds, lists with status, edits and removes a source", async () => {
      const { api, store } = await open();
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

      await sourceReporter(store, "vllm-a", "prometheus").ok(NOW + 1, {
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
      await sourceReporter(store, "vllm-a", "prometheus").error(NOW + 2, "HTTP 503");
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

    it("a configured source's status written after its removal does not bring it back; implicit ones still appear", async () => {
      const { api, store } = await open();
      await api.sources.upsert({ source: prometheus() });
      const report = sourceReporter(store, "vllm-a", "prometheus", "vLLM A", { configured: true });
      await report.ok(NOW + 1, { series: 3, events: 1 });
      expect((await api.sources.list()).map((s) => [s.id, s.state])).toEqual([["vllm-a", "ok"]]);
      // A scrape that was running when the operator removed the source ends afterwards, ok or failed.
      await api.sources.remove({ id: "vllm-a" });
      await report.ok(NOW + 2, { series: 3, events: 1 });
      await report.error(NOW + 3, "HTTP 503");
      expect(await api.sources.list()).toEqual([]);
      // The same writes made side by side with the removal leave nothing behind either.
      await api.sources.upsert({ source: prometheus() });
      await Promise.all([
        api.sources.remove({ id: "vllm-a" }),
        report.ok(NOW + 4, { events: 1 }),
        report.error(NOW + 5, "x"),
      ]);
      await report.ok(NOW + 6, { events: 1 });
      expect(await api.sources.list()).toEqual([]);
      // An implicit source has no sources row: its writes make its status row.
      await sourceReporter(store, "otlp", "otlp", "Harness OTLP logs").ok(NOW, { events: 7 });
      expect((await api.sources.list()).map((s) => [s.id, s.configured])).toEqual([["otlp", false]]);
    });

    it("lists implicit sources (OTLP, trace uploads) after configured ones", async () => {
      const { api, store } = await open();
      await api.sources.upsert({ source: prometheus() });
      await sourceReporter(store, "otlp", "otlp", "Harness OTLP logs").ok(NOW, { events: 7 });
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
      const { api, store } = await open();
      await api.sources.upsert({ source: prometheus() });
      const error = await api.sources.upsert({ source: prometheus(over) as never }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "BAD_REQUEST" });
      expect(JSON.stringify(error)).toContain(field.split(".").at(-1));
      expect((await getSource(store, "vllm-a"))!.config).toEqual({
        url: "http://vllm-a:8000/metrics",
        kind: "vllm",
        interval_seconds: 15,
      });
    });

    it("create refuses an existing id and a kind cannot change in place", async () => {
      const { api } = await open();
      await api.sources.upsert({ source: prometheus(), create: true });
      await expect(api.sources.upsert({ source: prometheus(), create: true })).rejects.toMatchObject({
        code: "CONFLICT",
      });
      await expect(
        api.sources.upsert({ source: { id: "vllm-a", name: "x", kind: "trace-dir", config: { path: "t" } } }),
      ).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining("remove it to change its kind"),
      });
    });

    it("a trace-dir outside SWITCHYARD_IMPORT_DIR is a 422 that does not say whether it exists; nothing stored", async () => {
      const { api, store } = await open();
      const refused = async (p: string) => {
        const source = { id: "probe", name: "probe", kind: "trace-dir" as const, config: { path: p } };
        const err = await api.sources.upsert({ source }).catch((e: unknown) => e);
        expect(getHTTPStatusCodeFromError(err as never)).toBe(422);
        return (err as Error).message;
      };
      const [ssh, nonexistent] = [await refused("/root/.ssh"), await refused("/nonexistent")];
      expect(ssh).toBe("config.path: must be a relative folder name inside SWITCHYARD_IMPORT_DIR (no absolute path)");
      expect(nonexistent).toBe(ssh);
      expect(await refused("a/../../outside")).toBe(
        'config.path: must be a relative folder name inside SWITCHYARD_IMPORT_DIR (no ".." component)',
      );
      fs.mkdirSync(folders.imports, { recursive: true });
      fs.symlinkSync(folders.outside, path.join(folders.imports, "linked"));
      expect(await refused("linked")).toMatch(/\(no symbolic link at any part of the path\)$/);
      expect(await getSource(store, "probe")).toBeNull();

      await api.sources.upsert({
        source: { id: "traces", name: "t", kind: "trace-dir", config: { path: "dynamo/later" } },
      });
      expect((await getSource(store, "traces"))!.config).toEqual({ path: "dynamo/later", poll_seconds: 5 });
      fs.rmSync(path.join(folders.imports, "linked"));
    });

    it("a ZMQ ipc:// socket outside SWITCHYARD_IMPORT_DIR is a 422 naming the field; nothing stored", async () => {
      const { api, store } = await open();
      const zmq = (endpoint: string, replay?: string) => ({
        id: "kv-ipc",
        name: "kv",
        kind: "zmq-kv" as const,
        config: { endpoint, worker_id: "w1", ...(replay ? { replay_endpoint: replay } : {}) },
      });
      for (const [source, message] of [
        [zmq("ipc:///run/docker.sock"), "config.endpoint: must be a relative file name inside SWITCHYARD_IMPORT_DIR"],
        [zmq("ipc://kv.sock", "ipc://../replay.sock"), "config.replay_endpoint: must be a relative file name"],
      ] as const) {
        const err = await api.sources.upsert({ source }).catch((e: unknown) => e);
        expect(getHTTPStatusCodeFromError(err as never)).toBe(422);
        expect((err as Error).message).toContain(message);
      }
      expect(await getSource(store, "kv-ipc")).toBeNull();
      await api.sources.upsert({ source: zmq("ipc://vllm/kv.sock") });
      expect((await getSource(store, "kv-ipc"))!.config).toMatchObject({ endpoint: "ipc://vllm/kv.sock" });
    });

    it("viewers read, only operators change", async () => {
      const { as } = await open();
      const viewer = as({ kind: "user", id: 2, name: "v", role: "viewer" });
      const operator = as({ kind: "user", id: 3, name: "o", role: "operator" });
      await expect(viewer.sources.upsert({ source: prometheus() })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await operator.sources.upsert({ source: prometheus() });
      expect(await viewer.sources.list()).toHaveLength(1);
      await expect(viewer.sources.remove({ id: "vllm-a" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(as(null).sources.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    });
  });

  describe.skipIf(engine.skip)(`${engine.engine}: sources.storage`, () => {
    it("reports the oldest row kept per kind with its retention, and the database's size", async () => {
      const { api } = await open([
        minimal.request({ id: "r1", ts: T0 + 5, arrived_at: T0 }),
        minimal["kv.stored"]({ id: "k1", ts: T0 + 1_000 }),
      ]);
      const s = await api.sources.storage();
      expect(s.fileBytes + s.walBytes).toBe(s.totalBytes);
      // SQLite's test database is in memory (size 0; the file case is in sources.test.ts); PostgreSQL's is real.
      if (engine.engine === "PostgreSQL") expect(s.fileBytes).toBeGreaterThan(1_000_000);
      const byTable = Object.fromEntries(s.kinds.map((k) => [k.table, k]));
      expect(byTable.requests).toMatchObject({ label: "Requests", oldest: T0, keptFor: "30 days" });
      expect(byTable.kv_events).toMatchObject({ oldest: T0 + 1_000, keptFor: "24 h" });
      expect(byTable.requests_1m).toMatchObject({ oldest: T0, keptFor: "400 days" });
      expect(byTable.worker_stats).toMatchObject({ oldest: null, keptFor: "24 h" });
      expect(byTable.tools).toMatchObject({ oldest: null });
    });
  });
}
