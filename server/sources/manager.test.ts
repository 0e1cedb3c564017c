import { describe, expect, it } from "vitest";
import { getSourceStatus, removeSource, upsertSource, listSources } from "../../db/queries/source-registry";
import { testDb } from "../../test/db";
import { startSources, syncEnvTargets, type Starters } from "./manager";
import { parseScrapeTargets } from "./prometheus/env-targets";
import { reloadSources } from "./reload";
import type { SourceReport } from "./status";

const NOW = 1_764_400_000_000;

function fakeStarters() {
  const log: string[] = [];
  const starter = (kind: string) => (_db: unknown, id: string, config: unknown, report: SourceReport) => {
    log.push(`start ${kind} ${id} ${JSON.stringify(config)}`);
    report.ok(NOW, { events: 1 });
    return async () => void log.push(`stop ${id}`);
  };
  const starters: Starters = {
    prometheus: starter("prometheus"),
    "zmq-kv": starter("zmq-kv"),
    "trace-dir": starter("trace-dir"),
  };
  return { log, starters };
}

const prom = (id: string, url: string, enabled = true) => ({
  id,
  kind: "prometheus",
  name: id,
  config: { url, kind: "vllm" },
  enabled,
});

describe("startSources", () => {
  it("starts enabled sources with parsed configs, and reload applies adds, edits, disables and removes", async () => {
    const db = testDb();
    const { log, starters } = fakeStarters();
    upsertSource(db, prom("a", "http://a/metrics"), NOW);
    upsertSource(db, prom("off", "http://off/metrics", false), NOW);
    const manager = startSources(db, { now: () => NOW, starters });
    expect(log).toEqual(['start prometheus a {"url":"http://a/metrics","kind":"vllm","interval_seconds":15}']);

    upsertSource(db, { id: "t", kind: "trace-dir", name: "traces", config: { path: "/traces" }, enabled: true }, NOW);
    upsertSource(db, prom("a", "http://a2/metrics"), NOW);
    upsertSource(db, prom("off", "http://off/metrics", true), NOW);
    log.length = 0;
    manager.reload();
    expect(log.sort()).toEqual([
      'start prometheus a {"url":"http://a2/metrics","kind":"vllm","interval_seconds":15}',
      'start prometheus off {"url":"http://off/metrics","kind":"vllm","interval_seconds":15}',
      'start trace-dir t {"path":"/traces","poll_seconds":5}',
      "stop a",
    ]);

    log.length = 0;
    manager.reload();
    expect(log).toEqual([]);

    removeSource(db, "t");
    upsertSource(db, prom("off", "http://off/metrics", false), NOW);
    reloadSources();
    await Promise.resolve();
    expect(log.sort()).toEqual(["stop off", "stop t"]);

    log.length = 0;
    await manager.stop();
    expect(log).toEqual(["stop a"]);
    reloadSources();
    expect(log).toEqual(["stop a"]);
  });

  it("a stored config that no longer validates is reported as an error, not started; a throwing starter too", async () => {
    const db = testDb();
    const { log, starters } = fakeStarters();
    upsertSource(db, { id: "bad", kind: "prometheus", name: "bad", config: { url: "not a url" }, enabled: true }, NOW);
    upsertSource(
      db,
      { id: "boom", kind: "zmq-kv", name: "boom", config: { endpoint: "tcp://h:5557", worker_id: "w" }, enabled: true },
      NOW,
    );
    upsertSource(db, { id: "odd", kind: "carrier-pigeon", name: "odd", config: {}, enabled: true }, NOW);
    starters["zmq-kv"] = () => {
      throw new Error("socket exploded");
    };
    const manager = startSources(db, { now: () => NOW, starters });
    expect(log).toEqual([]);
    expect(getSourceStatus(db, "bad")).toMatchObject({
      lastError: "not started: config.url: must be an http(s) URL",
      errorCount: 1,
    });
    expect(getSourceStatus(db, "boom")).toMatchObject({ lastError: "not started: socket exploded" });
    expect(getSourceStatus(db, "odd")).toMatchObject({
      lastError: 'not started: unknown source kind "carrier-pigeon"',
    });
    manager.reload();
    expect(getSourceStatus(db, "bad")!.errorCount).toBe(1);
    await manager.stop();
  });
});

describe("syncEnvTargets", () => {
  it("upserts environment targets by stable id and removes ones no longer listed, leaving page-added sources alone", () => {
    const db = testDb();
    upsertSource(db, prom("mine", "http://mine/metrics"), NOW - 1);
    const two = parseScrapeTargets(
      '[{"url":"http://a/metrics","kind":"vllm"},{"url":"http://b/metrics","kind":"sglang"}]',
    );
    syncEnvTargets(db, two, NOW);
    syncEnvTargets(db, two, NOW + 1);
    expect(listSources(db).map((s) => [s.origin, s.config.url])).toEqual([
      ["ui", "http://mine/metrics"],
      ["env", "http://a/metrics"],
      ["env", "http://b/metrics"],
    ]);
    syncEnvTargets(
      db,
      parseScrapeTargets('[{"url":"http://b/metrics","kind":"sglang","interval_seconds":5}]'),
      NOW + 2,
    );
    expect(listSources(db).map((s) => [s.origin, s.config.url, s.config.interval_seconds])).toEqual([
      ["ui", "http://mine/metrics", undefined],
      ["env", "http://b/metrics", 5],
    ]);
  });
});
