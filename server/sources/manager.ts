import type { Db } from "../../db/client";
import { listSources, removeSource, upsertSource } from "../../db/queries/source-registry";
import { startTraceDirSource } from "./dynamo-trace/watch";
import { parseSourceConfig, type ConfiguredKind } from "./config";
import type { EnvTarget } from "./prometheus/env-targets";
import { startPrometheusSource } from "./prometheus/scraper";
import { registerSourceManager } from "./reload";
import { sourceReporter, type SourceKind, type SourceStarter } from "./status";
import { startZmqSource } from "./zmq/subscriber";
import { log } from "../observability/logger";

// Each starter takes its own kind's parsed config; the manager passes what parseSourceConfig validated.
type AnyStarter = SourceStarter<any>;
export type Starters = Record<ConfiguredKind, AnyStarter>;

export const DEFAULT_STARTERS: Starters = {
  prometheus: startPrometheusSource,
  "zmq-kv": startZmqSource,
  "trace-dir": startTraceDirSource,
};

export type SourceManager = { reload(): void; stop(): Promise<void> };
type Running = { fingerprint: string; stop: () => Promise<void> };

/** Starts every enabled configured source; reload() after any add/edit/remove; stop() on shutdown. */
export function startSources(db: Db, opts: { now?: () => number; starters?: Starters } = {}): SourceManager {
  const now = opts.now ?? Date.now;
  const starters = opts.starters ?? DEFAULT_STARTERS;
  const running = new Map<string, Running>();
  let stopped = false;

  const stopOne = (id: string) => {
    const current = running.get(id);
    running.delete(id);
    if (current)
      void current.stop().catch((err) => log().error({ source: id, err: message(err) }, "stopping source failed"));
  };

  const reload = () => {
    if (stopped) return;
    const wanted = new Map<string, { kind: string; name: string; config: unknown; fingerprint: string }>();
    for (const s of listSources(db)) {
      if (!s.enabled) continue;
      wanted.set(s.id, {
        kind: s.kind,
        name: s.name,
        config: s.config,
        fingerprint: JSON.stringify([s.kind, s.name, s.config]),
      });
    }
    for (const id of [...running.keys()]) if (wanted.get(id)?.fingerprint !== running.get(id)!.fingerprint) stopOne(id);
    for (const [id, s] of wanted) {
      if (running.has(id)) continue;
      const report = sourceReporter(db, id, s.kind as SourceKind, s.name);
      const parsed = parseSourceConfig(s.kind, s.config);
      const starter = (starters as Record<string, AnyStarter | undefined>)[s.kind];
      if (!parsed.ok || !starter) {
        report.error(now(), parsed.ok ? `no starter for kind "${s.kind}"` : `not started: ${parsed.error}`);
        running.set(id, { fingerprint: s.fingerprint, stop: async () => {} });
        continue;
      }
      try {
        running.set(id, { fingerprint: s.fingerprint, stop: starter(db, id, parsed.config, report) });
      } catch (err) {
        report.error(now(), `not started: ${message(err)}`);
        running.set(id, { fingerprint: s.fingerprint, stop: async () => {} });
      }
    }
  };

  reload();
  const manager: SourceManager = {
    reload,
    async stop() {
      stopped = true;
      const stops = [...running.values()].map((r) => r.stop().catch(() => {}));
      running.clear();
      await Promise.all(stops);
      registerSourceManager(null, manager);
    },
  };
  registerSourceManager(manager);
  return manager;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Make the configured sources match the environment's targets: upsert each, remove env targets no longer listed. */
export function syncEnvTargets(db: Db, targets: EnvTarget[], now: number): void {
  const keep = new Set(targets.map((t) => t.id));
  for (const s of listSources(db)) if (s.origin === "env" && !keep.has(s.id)) removeSource(db, s.id);
  for (const t of targets)
    upsertSource(
      db,
      { id: t.id, kind: "prometheus", name: t.name, config: t.config, enabled: true, origin: "env" },
      now,
    );
}
