import type { Store } from "../../../db/store/store";
import type { SourceReport, SourceSink } from "../status";
import type { PrometheusSourceConfig } from "../../../lib/sources/prometheus-config";
import { emptyState, mapScrape, type ScrapeState } from "./map";
import { parseExposition } from "./parse";
import { addKvbmSample } from "../../../db/store/tiers";
import { minuteOf } from "../../../lib/counters";
import type { KvbmReading } from "./kvbm";
import { outboundFetch, type OutboundFetch } from "../../outbound/fetch";
import { log, scrubSecrets } from "../../observability/logger";
import { openStoredSecret } from "../../auth/stored-secrets";

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const ACCEPT = "text/plain;version=0.0.4;q=0.9,*/*;q=0.1";

export type ScrapeOptions = { now?: () => number; fetch?: OutboundFetch };

/**
 * Fetch a /metrics body through the outbound policy, with a timeout; headers are merged into the request. Throws an
 * Error whose message is a fixed reason ("HTTP 404", "connection refused"): never text from the reply.
 */
export async function fetchExposition(
  url: string,
  timeoutMs: number,
  fetchImpl: OutboundFetch = outboundFetch,
  headers: Record<string, string> = {},
): Promise<string> {
  const reply = await fetchImpl(url, { headers: { accept: ACCEPT, ...headers }, timeoutMs, maxBytes: MAX_BODY_BYTES });
  if (reply.status < 200 || reply.status > 299) {
    logBody(url, reply.status, reply.text);
    throw new Error(`HTTP ${reply.status}`);
  }
  return reply.text;
}

// The start of a reply that was not metrics goes to the debug log only: status lines are seen by every role.
function logBody(url: string, status: number, text: string): void {
  log().debug({ url, status, body: scrubSecrets(text.slice(0, 200)) }, "scrape reply not used");
}

/** A parse problem without the line's text: "line 3: malformed" (the text stays in the debug log). */
export function withoutContent(problem: string): string {
  const line = /^line \d+: malformed/.exec(problem);
  if (line) return line[0];
  return problem.startsWith("unparseable exposition") ? "unparseable exposition" : problem;
}

/** One scrape: fetch, parse, map, submit, report. Returns the state for the next scrape (unchanged on failure). */
export async function scrapeOnce(
  sink: SourceSink,
  id: string,
  config: PrometheusSourceConfig,
  report: SourceReport,
  state: ScrapeState,
  opts: ScrapeOptions = {},
): Promise<ScrapeState> {
  const now = opts.now ?? Date.now;
  const started = now();
  const timeoutMs = Math.round((config.timeout_seconds ?? Math.min(10, config.interval_seconds)) * 1000);
  let text: string;
  try {
    const auth: Record<string, string> = config.bearer_token
      ? { authorization: `Bearer ${openStoredSecret(config.bearer_token)}` }
      : {};
    text = await fetchExposition(config.url, timeoutMs, opts.fetch, auth);
  } catch (err) {
    await report.error(now(), err instanceof Error ? err.message : String(err));
    return state;
  }
  const exposition = parseExposition(text);
  if (exposition.series === 0) logBody(config.url, 200, text);
  if (config.labels)
    for (const f of exposition.families.values())
      for (const s of [...f.samples, ...f.histograms]) s.labels = { ...config.labels, ...s.labels };
  const mapped = mapScrape(exposition, config, id, started, state);
  let rejected: string[] = [];
  let accepted = 0;
  try {
    const reply = await sink.submit(mapped.events);
    accepted = reply.accepted + reply.duplicate;
    rejected = reply.items
      .filter((i) => i.status === "rejected")
      .map((i) => `${i.id ?? `event ${i.index}`}: ${i.error ?? "rejected"}`);
  } catch (err) {
    await report.error(now(), `ingest failed: ${err instanceof Error ? err.message : String(err)}`);
    return state;
  }
  if (mapped.kvbm) await storeKvbm(sink.store, mapped.kvbm_worker, started, mapped.kvbm);
  const problems = [...exposition.errors.map(withoutContent), ...rejected];
  if (!mapped.kind) problems.push(...mapped.notes);
  const durationMs = now() - started;
  const seen = {
    events: accepted,
    series: exposition.series,
    durationMs,
    missing: mapped.missing,
    renamed: mapped.renamed,
    detail: {
      detected_kind: mapped.kind,
      aggregates: mapped.aggregates,
      kvbm: mapped.kvbm && { worker_id: mapped.kvbm_worker, ...mapped.kvbm },
      workers: mapped.events.map((e) => e.worker_id),
      notes: mapped.notes.slice(0, 20),
      problems: problems.slice(0, 20),
    },
  };
  // Partial problems (malformed lines, rejected events) stay in detail.problems: the good series still count as ok.
  if (exposition.series === 0) await report.error(now(), notMetrics(exposition.errors));
  else if (!mapped.kind) await report.error(now(), mapped.notes[0]!);
  else await report.ok(now(), seen);
  return mapped.state;
}

// Why a reply without series is not metrics, by position only: "not Prometheus text: line 1".
function notMetrics(errors: string[]): string {
  const line = /^line (\d+):/.exec(errors[0] ?? "");
  if (line) return `not Prometheus text: line ${line[1]}`;
  return errors.length ? "not Prometheus text" : "no series in response";
}

/** Add a KVBM reading's block movements (once it has a previous scrape) and hit rates to its worker's minute. */
async function storeKvbm(store: Store, workerId: string, at: number, k: KvbmReading): Promise<void> {
  const b = k.blocks;
  if (Object.values(b).every((v) => v === null) && k.host_hit_rate === null && k.disk_hit_rate === null) return;
  await addKvbmSample(store, {
    workerId,
    minute: minuteOf(at),
    offloadD2h: b.offload_d2h ?? 0,
    offloadH2d: b.offload_h2d ?? 0,
    offloadD2d: b.offload_d2d ?? 0,
    onboardH2d: b.onboard_h2d ?? 0,
    onboardD2d: b.onboard_d2d ?? 0,
    hostHitRate: k.host_hit_rate,
    diskHitRate: k.disk_hit_rate,
  });
}

/** Scrape one /metrics endpoint on its interval and submit the mapped events; returns stop(). */
export function startPrometheusSource(
  sink: SourceSink,
  id: string,
  config: PrometheusSourceConfig,
  report: SourceReport,
  opts: ScrapeOptions = {},
): () => Promise<void> {
  let state = emptyState();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    inFlight = scrapeOnce(sink, id, config, report, state, opts)
      .then((next) => {
        state = next;
      })
      .catch((err) => report.error((opts.now ?? Date.now)(), err instanceof Error ? err.message : String(err)))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, config.interval_seconds * 1000);
      });
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
  };
}
