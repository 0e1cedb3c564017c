import type { BatchReply } from "../../ingest/batch";
import type { TelemetryEventInput } from "../../ingest/events";
import { traceLines, TraceReadError } from "./lines";
import { createTraceMapper, eventId, type LoadSample } from "./map";
import type { KvState } from "../../../db/store/trace-import";

/** Events per submitted batch (submitEvents takes at most 5,000). */
export const BATCH = 2_000;
/** Line errors kept in a summary (the rest are only counted). */
export const MAX_ERRORS = 20;

export type LineError = { line: number; message: string };

/** What one imported file gave: records read, events accepted/duplicate/rejected, the first errors, a fatal read error. */
export type ImportSummary = {
  name: string;
  bytes: number;
  records: number;
  badLines: number;
  events: number;
  accepted: number;
  duplicate: number;
  rejected: number;
  errors: LineError[];
  gaps: number;
  openTools: number;
  fatal: string | null;
};

/** A summary of a file nothing has been read from yet. */
export function emptyImportSummary(name: string): ImportSummary {
  return {
    name,
    bytes: 0,
    records: 0,
    badLines: 0,
    events: 0,
    accepted: 0,
    duplicate: 0,
    rejected: 0,
    errors: [],
    gaps: 0,
    openTools: 0,
    fatal: null,
  };
}

export type ImportDeps = {
  submit: (events: TelemetryEventInput[]) => Promise<BatchReply>;
  /** The worker's last KV sample at or before ts (load samples carry it forward), or null. */
  kvState?: (workerId: string, ts: number) => Promise<KvState | null>;
  onProgress?: (p: { bytes: number; records: number }) => void;
};

const EMPTY_KV: KvState = { kv_active_blocks: 0, kv_total_blocks: 0, prefix_query_tokens: "0", prefix_hit_tokens: "0" };

/** A worker.stats event from a forward-pass load sample, with the worker's last known KV state. */
export function loadSampleEvent(s: LoadSample, kv: KvState | null): TelemetryEventInput {
  const k = kv ?? EMPTY_KV;
  return {
    id: eventId("dyn-fpm", s.worker_id, String(s.ts)),
    kind: "worker.stats",
    ts: s.ts,
    source: "dynamo-trace",
    worker_id: s.worker_id,
    kv_active_blocks: Math.min(k.kv_active_blocks, k.kv_total_blocks),
    kv_total_blocks: k.kv_total_blocks,
    requests_running: s.requests_running,
    requests_waiting: s.requests_waiting,
    prefix_query_tokens: k.prefix_query_tokens,
    prefix_hit_tokens: k.prefix_hit_tokens,
  };
}

/**
 * Import one dynamo.agent.trace.v1 / dynamo.fpm.trace.v1 file (JSONL or gzip JSONL) from a byte stream: bad lines are
 * counted with their numbers, good records are submitted in batches, and a truncated gzip keeps what came before it.
 */
export async function importTrace(
  name: string,
  source: AsyncIterable<Uint8Array>,
  deps: ImportDeps,
): Promise<ImportSummary> {
  const sum = emptyImportSummary(name);
  const mapper = createTraceMapper();
  let batch: TelemetryEventInput[] = [];
  let lines: number[] = [];
  const fail = (line: number, message: string) => {
    sum.badLines++;
    if (sum.errors.length < MAX_ERRORS) sum.errors.push({ line, message });
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const reply = await deps.submit(batch);
    sum.events += batch.length;
    sum.accepted += reply.accepted;
    sum.duplicate += reply.duplicate;
    sum.rejected += reply.rejected;
    for (const item of reply.items) {
      if (item.status === "rejected" && sum.errors.length < MAX_ERRORS)
        sum.errors.push({ line: lines[item.index] ?? 0, message: item.error ?? "rejected" });
    }
    batch = [];
    lines = [];
  };
  const add = async (e: TelemetryEventInput, line: number) => {
    batch.push(e);
    lines.push(line);
    if (batch.length >= BATCH) await flush();
  };
  async function* counted() {
    for await (const chunk of source) {
      sum.bytes += chunk.byteLength;
      yield chunk;
    }
  }
  try {
    for await (const l of traceLines(counted())) {
      if ("tooLong" in l) {
        fail(l.line, "line is too long");
        continue;
      }
      sum.records++;
      const m = mapper.push(l.text, l.line);
      if (m.error) fail(l.line, m.error);
      for (const e of m.events) await add(e, l.line);
      for (const s of m.samples) {
        await add(loadSampleEvent(s, (await deps.kvState?.(s.worker_id, s.ts)) ?? null), s.line);
      }
      if (sum.records % 1_000 === 0) deps.onProgress?.({ bytes: sum.bytes, records: sum.records });
    }
  } catch (err) {
    if (!(err instanceof TraceReadError)) throw err;
    sum.fatal = err.message;
  }
  for (const e of mapper.finish()) await add(e, 0);
  await flush();
  sum.gaps = mapper.gaps();
  sum.openTools = mapper.openTools();
  deps.onProgress?.({ bytes: sum.bytes, records: sum.records });
  return sum;
}
