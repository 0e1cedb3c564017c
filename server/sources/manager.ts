import { inCluster } from "../ingest/seam";
import { getSource, listSources, removeSource, upsertSource } from "../../db/store/sources";
import { SOURCE_SECRET_FIELDS } from "../../lib/secret-fields";
import { sealConfig } from "../auth/stored-secrets";
import type { Store } from "../../db/store/store";
import { startTraceDirSource } from "./dynamo-trace/watch";
import { parseSourceConfig, type ConfiguredKind } from "../../lib/sources/config";
import type { EnvTarget } from "./prometheus/env-targets";
import { startPrometheusSource } from "./prometheus/scraper";
import { registerSourceManager } from "./reload";
import { sourceReporter, type SourceKind, type SourceSink, type SourceStarter } from "./status";
import { startZmqSource } from "./zmq/subscriber";
import { errorMessage, log } from "../observability/logger";

// Each starter takes its own kind's parsed config; the manager passes what parseSourceConfig validated.
type AnyStarter = SourceStarter<any>;
export type Starters = Record<ConfiguredKind, AnyStarter>;

export const DEFAULT_STARTERS: Starters = {
  prometheus: startPrometheusSource,
  "zmq-kv": startZmqSource,
  "trace-dir": startTraceDirSource,
};

/** reload() resolves once the running sources match the configured ones (it never rejects: failures are logged). */
export type SourceManager = { reload(): Promise<void>; stop(): Promise<void> };
type Running = { fingerprint: string; stop: () => Promise<void> };

/**
 * Starts every enabled configured source of the sink's store; reload() after any add/edit/remove; stop() on shutdown.
 * Resolves once the first reload has run.
 */
export async function startSources(
  sink: SourceSink,
  opts: { now?: () => number; starters?: Starters } = {},
): Promise<SourceManager> {
  const now = opts.now ?? Date.now;
  const starters = opts.starters ?? DEFAULT_STARTERS;
  const running = new Map<string, Running>();
  let stopped = false;

  const stopOne = (id: string) => {
    const current = running.get(id);
    running.delete(id);
    if (current)
      void current.stop().catch((err) => log().error({ source: id, err: errorMessage(err) }, "stopping source failed"));
  };

  /** Start one source; resolves once a refusal to start is recorded. */
  const startOne = async (id: string, s: { kind: string; name: string; config: unknown; fingerprint: string }) => {
    const report = sourceReporter(sink.store, id, s.kind as SourceKind, s.name, { configured: true });
    const idle = { fingerprint: s.fingerprint, stop: async () => {} };
    const parsed = parseSourceConfig(s.kind, s.config);
    const starter = (starters as Record<string, AnyStarter | undefined>)[s.kind];
    if (!parsed.ok || !starter) {
      running.set(id, idle);
      await report.error(now(), parsed.ok ? `no starter for kind "${s.kind}"` : `not started: ${parsed.error}`);
      return;
    }
    try {
      // A source configured with a cluster puts every event it produces in it.
      const cluster = (parsed.config as { cluster?: string }).cluster;
      const into = cluster === undefined ? sink : inCluster(sink, cluster);
      running.set(id, { fingerprint: s.fingerprint, stop: starter(into, id, parsed.config, report) });
    } catch (err) {
      running.set(id, idle);
      await report.error(now(), `not started: ${errorMessage(err)}`);
    }
  };

  const apply = async () => {
    const configured = await listSources(sink.store);
    if (stopped) return;
    const wanted = new Map<string, { kind: string; name: string; config: unknown; fingerprint: string }>();
    for (const s of configured) {
      if (!s.enabled) continue;
      const fingerprint = JSON.stringify([s.kind, s.name, s.config]);
      wanted.set(s.id, { kind: s.kind, name: s.name, config: s.config, fingerprint });
    }
    for (const id of [...running.keys()]) if (wanted.get(id)?.fingerprint !== running.get(id)!.fingerprint) stopOne(id);
    const starting: Promise<void>[] = [];
    for (const [id, s] of wanted) if (!running.has(id)) starting.push(startOne(id, s));
    await Promise.all(starting);
  };

  // One reload at a time, in the order asked: two overlapping ones would start the same source twice.
  let last: Promise<void> = Promise.resolve();
  const reload = () =>
    (last = last.then(() =>
      stopped
        ? undefined
        : apply().catch((err: unknown) => log().warn({ err: errorMessage(err) }, "sources: reload failed")),
    ));

  await reload();
  const manager: SourceManager = {
    reload,
    async stop() {
      stopped = true;
      await last;
      const stops = [...running.values()].map((r) => r.stop().catch(() => {}));
      running.clear();
      await Promise.all(stops);
      registerSourceManager(null, manager);
    },
  };
  registerSourceManager(manager);
  return manager;
}

/** Make the configured sources match the environment's targets: upsert each, remove env targets no longer listed. */
export async function syncEnvTargets(s: Store, targets: EnvTarget[], now: number): Promise<void> {
  const keep = new Set(targets.map((t) => t.id));
  for (const source of await listSources(s))
    if (source.origin === "env" && !keep.has(source.id)) await removeSource(s, source.id);
  for (const t of targets) {
    const config = sealConfig(t.config, (await getSource(s, t.id))?.config ?? null, SOURCE_SECRET_FIELDS);
    await upsertSource(s, { id: t.id, kind: "prometheus", name: t.name, config, enabled: true, origin: "env" }, now);
  }
}
