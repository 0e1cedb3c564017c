import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { clusterCount } from "../../db/store/clusters";
import { attributionProgress, databaseBytes, rolloutStates, sourceHealth } from "../../db/store/observability";
import type { Store } from "../../db/store/store";
import type { IngestTally } from "../ingest/tally";
import { methodLabel, routeLabel } from "./route-label";
import { threadHeaps } from "./thread-memory";
import { METRICS_MAX_SOURCES } from "../../lib/memory-bounds";

// Switchyard's own health in the Prometheus text format. One registry per process, kept on globalThis: the server
// (server/main.ts) and Next's route bundles load separate copies of this module and must count into the same one.
// Ingest runs in worker threads; their replies carry per-kind tallies that the main thread counts here.

const ROLLOUT_STATES = ["in_sync", "pending", "stale", "rejected", "unreachable"] as const;
/** Distinct sender names counted by name; later ones are counted as "other" (the header is client-chosen). */
const MAX_SOURCES = METRICS_MAX_SOURCES;

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "switchyard_" });
  // Gauges that prom-client names like counters (promtool refuses the "_total" suffix on a gauge).
  for (const name of ["active_handles_total", "active_requests_total", "active_resources_total"])
    registry.removeSingleMetric(`switchyard_nodejs_${name}`);
  const on = { registers: [registry] };
  return {
    registry,
    sources: new Set<string>(),
    ingestEvents: new Counter({
      name: "switchyard_ingest_events_total",
      help: "Telemetry events received, by kind, sender and result (accepted, duplicate, rejected).",
      labelNames: ["kind", "source", "result"] as const,
      ...on,
    }),
    ingestDuration: new Histogram({
      name: "switchyard_ingest_batch_duration_seconds",
      help: "Time to decode, validate and store one ingest batch (from the route or a server-side source).",
      labelNames: ["path"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      ...on,
    }),
    httpDuration: new Histogram({
      name: "switchyard_http_request_duration_seconds",
      help: "HTTP request latency by route, method and status code.",
      labelNames: ["route", "method", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      ...on,
    }),
    attributionLag: new Gauge({
      name: "switchyard_attribution_lag_seconds",
      help: "Arrival time of the newest ingested request minus that of the oldest request not yet attributed (0 when caught up).",
      ...on,
    }),
    attributionBacklog: new Gauge({
      name: "switchyard_attribution_backlog_requests",
      help: "Requests ingested but not yet attributed (by row position).",
      ...on,
    }),
    rollout: new Gauge({
      name: "switchyard_policy_rollout_state",
      help: "1 for the current rollout state of each policy target and kind, 0 for the others.",
      labelNames: ["target", "kind", "state"] as const,
      ...on,
    }),
    sourceErrors: new Gauge({
      name: "switchyard_source_errors",
      help: "Failed scrapes or receptions recorded for a source since it was added.",
      labelNames: ["source", "kind"] as const,
      ...on,
    }),
    sourceUp: new Gauge({
      name: "switchyard_source_up",
      help: "1 when a source's last attempt succeeded, 0 when it failed.",
      labelNames: ["source", "kind"] as const,
      ...on,
    }),
    threadRestarts: new Counter({
      name: "switchyard_thread_restarts_total",
      help: "Worker threads restarted by their owner, by kind and reason (out_of_memory: it passed its heap limit).",
      labelNames: ["thread", "reason"] as const,
      ...on,
    }),
    mallocTrims: new Counter({
      name: "switchyard_malloc_trims_total",
      help: "Times the process gave the C heap's whole free pages back to the system (glibc malloc_trim), by why.",
      labelNames: ["why"] as const,
      ...on,
    }),
    mallocTrimmed: new Counter({
      name: "switchyard_malloc_trimmed_bytes_total",
      help: "Resident memory those trims gave back (the process's RSS before each minus after).",
      ...on,
    }),
    threadHeap: new Gauge({
      name: "switchyard_thread_heap_bytes",
      help: "V8 heap of each thread of this process (main, ingest-1, attribution, preview-1, ...): used, total and limit. Process RSS is switchyard_process_resident_memory_bytes.",
      labelNames: ["thread", "kind"] as const,
      ...on,
      collect() {
        this.reset();
        for (const t of threadHeaps()) {
          this.set({ thread: t.thread, kind: "used" }, t.heapUsed);
          this.set({ thread: t.thread, kind: "total" }, t.heapTotal);
          this.set({ thread: t.thread, kind: "limit" }, t.heapLimit);
          this.set({ thread: t.thread, kind: "external" }, t.external);
        }
      },
    }),
    clusters: new Gauge({
      name: "switchyard_clusters",
      help: "Clusters the store holds, the default one included: events naming a new cluster create it, so a mistyped name shows here.",
      ...on,
    }),
    alertsFiring: new Gauge({
      name: "switchyard_alerts_firing",
      help: "Alerts firing at the last evaluation, by severity.",
      labelNames: ["severity"] as const,
      ...on,
    }),
    loopStalls: new Counter({
      name: "switchyard_event_loop_stalls_total",
      help: "Times this process's event loop was blocked for a second or more (every page and API call waited meanwhile).",
      ...on,
    }),
    alertEvaluations: new Counter({
      name: "switchyard_alert_evaluations_total",
      help: "Alert evaluations on this process (the leader), by outcome: ok, or failed when a rule's figures could not be read.",
      labelNames: ["outcome"] as const,
      ...on,
    }),
    alertDeliveries: new Gauge({
      name: "switchyard_alert_deliveries",
      help: "Alert deliveries per receiver since this process became leader, by state: sent, failed (refused or out of attempts), dropped (queue full), queued.",
      labelNames: ["receiver", "state"] as const,
      ...on,
    }),
    dbSize: new Gauge({
      name: "switchyard_database_size_bytes",
      help: "Size of the database: SQLite's main file and write-ahead log; PostgreSQL's database as main (wal 0).",
      labelNames: ["file"] as const,
      ...on,
    }),
  };
}

type Metrics = ReturnType<typeof create>;
const key = Symbol.for("switchyard.metrics");
type Holder = { [key]?: Metrics };

/** The process's metrics (created on first use). */
export function metrics(): Metrics {
  const holder = globalThis as Holder;
  holder[key] ??= create();
  return holder[key];
}

/** Count one ingest batch's per-kind results and its duration. path: "api" (POST /api/ingest) or "internal". */
export function recordIngest(source: string, tally: IngestTally, seconds: number, path: "api" | "internal"): void {
  const m = metrics();
  if (!m.sources.has(source) && m.sources.size < MAX_SOURCES) m.sources.add(source);
  const label = m.sources.has(source) ? source : "other";
  for (const [kind, counts] of Object.entries(tally)) {
    for (const result of ["accepted", "duplicate", "rejected"] as const) {
      if (counts[result] > 0) m.ingestEvents.inc({ kind, source: label, result }, counts[result]);
    }
  }
  m.ingestDuration.observe({ path }, seconds);
}

/** Time an HTTP request from now until its response is sent. */
export function instrumentRequest(req: IncomingMessage, res: ServerResponse): void {
  const end = metrics().httpDuration.startTimer({ route: routeLabel(req.url), method: methodLabel(req.method) });
  res.once("finish", () => end({ status: String(res.statusCode) }));
}

/**
 * Set the gauges read from the store (attribution progress, rollouts, sources, size) as of now, on either engine.
 * sqliteFile: the SQLite database's path for its size (null on PostgreSQL).
 */
export async function refreshFromStore(s: Store, sqliteFile: string | null): Promise<void> {
  const [a, rollouts, sources, size, clusters] = await Promise.all([
    attributionProgress(s),
    rolloutStates(s),
    sourceHealth(s),
    databaseBytes(s, sqliteFile),
    clusterCount(s),
  ]);
  const m = metrics();
  m.clusters.set(clusters);
  const pending = a.firstPendingArrivedAt !== null && a.newestArrivedAt !== null;
  m.attributionLag.set(pending ? Math.max(0, (a.newestArrivedAt! - a.firstPendingArrivedAt!) / 1000) : 0);
  m.attributionBacklog.set(a.newestRowid === null ? 0 : Math.max(0, a.newestRowid - a.cursor));

  m.rollout.reset();
  for (const r of rollouts)
    for (const state of ROLLOUT_STATES)
      m.rollout.set({ target: r.targetId, kind: r.kind, state }, r.state === state ? 1 : 0);
  m.sourceErrors.reset();
  m.sourceUp.reset();
  for (const src of sources) {
    m.sourceErrors.set({ source: src.id, kind: src.kind }, src.errorCount);
    if (src.lastSuccessAt !== null || src.lastErrorAt !== null)
      m.sourceUp.set({ source: src.id, kind: src.kind }, (src.lastSuccessAt ?? 0) >= (src.lastErrorAt ?? 0) ? 1 : 0);
  }
  m.dbSize.set({ file: "main" }, size.fileBytes);
  m.dbSize.set({ file: "wal" }, size.walBytes);
}
