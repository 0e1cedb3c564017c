import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getSourceStatus, listSources, removeSource, upsertSource } from "../../db/store/sources";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { startSources, syncEnvTargets, type Starters } from "./manager";
import { parseScrapeTargets } from "./prometheus/env-targets";
import { reloadSources } from "./reload";
import type { SourceReport, SourceSink } from "./status";

// The source manager and the environment's scrape targets over the store, written once and run on each engine
// (manager.test.ts: SQLite; manager.pg.test.ts: PostgreSQL). `b` is another process editing the sources.

const NOW = 1_764_400_000_000;

function fakeStarters() {
  const log: string[] = [];
  const starter = (kind: string) => (_db: unknown, id: string, config: unknown, report: SourceReport) => {
    log.push(`start ${kind} ${id} ${JSON.stringify(config)}`);
    void report.ok(NOW, { events: 1 });
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

export function managerCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`sources on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());
    /** The fake starters never submit: events are the starters' business, tested with each kind. */
    const sink = (): SourceSink => ({
      store: s.a,
      submit: () => Promise.reject(new Error("not submitted in these cases")),
    });

    describe("startSources", () => {
      it("starts enabled sources with parsed configs, and reload applies adds, edits, disables and removes", async () => {
        const { log, starters } = fakeStarters();
        await upsertSource(s.b, prom("a", "http://a/metrics"), NOW);
        await upsertSource(s.b, prom("off", "http://off/metrics", false), NOW);
        const manager = await startSources(sink(), { now: () => NOW, starters });
        expect(log).toEqual(['start prometheus a {"url":"http://a/metrics","kind":"vllm","interval_seconds":15}']);

        await upsertSource(
          s.b,
          { id: "t", kind: "trace-dir", name: "traces", config: { path: "traces" }, enabled: true },
          NOW,
        );
        await upsertSource(s.b, prom("a", "http://a2/metrics"), NOW);
        await upsertSource(s.b, prom("off", "http://off/metrics", true), NOW);
        log.length = 0;
        await manager.reload();
        expect(log.sort()).toEqual([
          'start prometheus a {"url":"http://a2/metrics","kind":"vllm","interval_seconds":15}',
          'start prometheus off {"url":"http://off/metrics","kind":"vllm","interval_seconds":15}',
          'start trace-dir t {"path":"traces","poll_seconds":5}',
          "stop a",
        ]);

        log.length = 0;
        await manager.reload();
        expect(log).toEqual([]);

        await removeSource(s.b, "t");
        await upsertSource(s.b, prom("off", "http://off/metrics", false), NOW);
        reloadSources();
        await vi.waitFor(() => expect(log.sort()).toEqual(["stop off", "stop t"]));

        log.length = 0;
        await manager.stop();
        expect(log).toEqual(["stop a"]);
        reloadSources();
        expect(log).toEqual(["stop a"]);
      });

      it("hands a source configured with a cluster a sink that puts every event it submits in that cluster", async () => {
        const submitted: unknown[][] = [];
        const into: SourceSink = {
          store: s.a,
          submit: async (events) => (submitted.push([...events]), { ok: true }) as never,
        };
        const seen: SourceSink[] = [];
        const starters: Starters = {
          prometheus: (sinkOf, _id, _config, report) => {
            seen.push(sinkOf);
            void sinkOf.submit([
              { kind: "worker.stats", id: "x" },
              { kind: "worker.stats", id: "y", cluster: "mine" },
            ]);
            void report.ok(NOW, { events: 2 });
            return async () => {};
          },
          "zmq-kv": () => async () => {},
          "trace-dir": () => async () => {},
        };
        await upsertSource(
          s.b,
          {
            ...prom("eu", "http://eu/metrics"),
            config: { url: "http://eu/metrics", kind: "vllm", cluster: "prod-eu" },
          },
          NOW,
        );
        await upsertSource(s.b, prom("plain", "http://plain/metrics"), NOW);
        const manager = await startSources(into, { now: () => NOW, starters });
        await vi.waitFor(() => expect(submitted.length).toBe(2));
        const clusters = submitted.map((batch) => batch.map((e) => (e as { cluster?: string }).cluster));
        expect(clusters).toContainEqual(["prod-eu", "prod-eu"]);
        expect(clusters).toContainEqual([undefined, "mine"]);
        expect(seen.filter((x) => x === into)).toHaveLength(1);
        expect(seen.every((x) => x.store === s.a)).toBe(true);
        await manager.stop();
      });

      it("a stored config that no longer validates is reported as an error, not started; a throwing starter too", async () => {
        const { log, starters } = fakeStarters();
        await upsertSource(
          s.b,
          { id: "bad", kind: "prometheus", name: "bad", config: { url: "not a url" }, enabled: true },
          NOW,
        );
        await upsertSource(
          s.b,
          {
            id: "boom",
            kind: "zmq-kv",
            name: "boom",
            config: { endpoint: "tcp://h:5557", worker_id: "w" },
            enabled: true,
          },
          NOW,
        );
        await upsertSource(s.b, { id: "odd", kind: "carrier-pigeon", name: "odd", config: {}, enabled: true }, NOW);
        starters["zmq-kv"] = () => {
          throw new Error("socket exploded");
        };
        const manager = await startSources(sink(), { now: () => NOW, starters });
        expect(log).toEqual([]);
        expect(await getSourceStatus(s.a, "bad")).toMatchObject({
          lastError: "not started: config.url: must be an http(s) URL",
          errorCount: 1,
        });
        expect(await getSourceStatus(s.a, "boom")).toMatchObject({ lastError: "not started: socket exploded" });
        expect(await getSourceStatus(s.a, "odd")).toMatchObject({
          lastError: 'not started: unknown source kind "carrier-pigeon"',
        });
        await manager.reload();
        expect((await getSourceStatus(s.a, "bad"))!.errorCount).toBe(1);
        await manager.stop();
      });
    });

    describe("syncEnvTargets", () => {
      it("upserts environment targets by stable id and removes ones no longer listed, leaving page-added sources alone", async () => {
        await upsertSource(s.b, prom("mine", "http://mine/metrics"), NOW - 1);
        const two = parseScrapeTargets(
          '[{"url":"http://a/metrics","kind":"vllm"},{"url":"http://b/metrics","kind":"sglang"}]',
        );
        await syncEnvTargets(s.a, two, NOW);
        await syncEnvTargets(s.b, two, NOW + 1);
        expect((await listSources(s.a)).map((s) => [s.origin, s.config.url])).toEqual([
          ["ui", "http://mine/metrics"],
          ["env", "http://a/metrics"],
          ["env", "http://b/metrics"],
        ]);
        await syncEnvTargets(
          s.a,
          parseScrapeTargets('[{"url":"http://b/metrics","kind":"sglang","interval_seconds":5}]'),
          NOW + 2,
        );
        expect((await listSources(s.a)).map((s) => [s.origin, s.config.url, s.config.interval_seconds])).toEqual([
          ["ui", "http://mine/metrics", undefined],
          ["env", "http://b/metrics", 5],
        ]);
      });
    });
  });
}
