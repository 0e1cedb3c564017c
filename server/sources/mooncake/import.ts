import { mooncakeRequests } from "../../preview/mooncake";
import { parseWorkloadTrace, traceSpanMs } from "../../sim/workload-trace";
import { BATCH, emptyImportSummary, MAX_ERRORS, type ImportSummary } from "../dynamo-trace/import";
import { traceLines, TraceReadError } from "../dynamo-trace/lines";
import type { SourceSink } from "../status";

// Mooncake-format traces (plain or gzip JSONL) imported as recorded requests. The whole file is checked by the
// simulator's own trace parser before anything is stored: a bad line refuses the file, naming file, line and field.

export const DEFAULT_MOONCAKE_BLOCK_SIZE = 512;

export type MooncakeImportOptions = {
  /** Tokens per hash id (512 in the Mooncake release). */
  blockSize: number;
  /** Unix ms of the trace's time zero; null: so that its last request is sent a minute before `now`. */
  startMs: number | null;
  now: number;
};

/** Read, check and store one Mooncake trace through a sink; a bad file comes back with `fatal` set and nothing stored. */
export async function importMooncakeInto(
  sink: SourceSink,
  name: string,
  source: AsyncIterable<Uint8Array>,
  opts: MooncakeImportOptions,
): Promise<ImportSummary> {
  const summary = emptyImportSummary(name);
  const counted = (async function* () {
    for await (const chunk of source) {
      summary.bytes += chunk.byteLength;
      yield chunk;
    }
  })();
  const lines: string[] = [];
  try {
    for await (const l of traceLines(counted)) {
      while (lines.length < l.line - 1) lines.push("");
      if ("tooLong" in l) {
        summary.fatal = `${name}:${l.line}: line too long`;
        return summary;
      }
      lines.push(l.text);
    }
  } catch (err) {
    summary.fatal = err instanceof TraceReadError ? `${name}: ${err.message}` : `${name}: cannot be read`;
    return summary;
  }
  const parsed = parseWorkloadTrace(lines.join("\n"), name, opts.blockSize);
  if (!parsed.ok) {
    summary.fatal = parsed.error;
    const m = /:(\d+): (.*)$/.exec(parsed.error);
    if (m) summary.errors.push({ line: Number(m[1]), message: m[2]! });
    summary.badLines = m ? 1 : 0;
    return summary;
  }
  summary.records = parsed.entries.length;
  const startMs = opts.startMs ?? opts.now - traceSpanMs(parsed.entries) - 60_000;
  const events = mooncakeRequests(parsed.entries, { startMs, blockSize: opts.blockSize, source: `mooncake:${name}` });
  summary.events = events.length;
  for (let i = 0; i < events.length; i += BATCH) {
    const reply = await sink.submit(events.slice(i, i + BATCH));
    summary.accepted += reply.accepted;
    summary.duplicate += reply.duplicate;
    summary.rejected += reply.rejected;
    for (const it of reply.items)
      if (it.status === "rejected" && summary.errors.length < MAX_ERRORS)
        summary.errors.push({ line: parsed.entries[i + it.index]!.line, message: it.error ?? "rejected" });
  }
  return summary;
}
