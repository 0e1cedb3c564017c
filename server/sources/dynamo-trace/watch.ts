import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import type { SourceReport, SourceSink } from "../status";
import type { traceDirConfig } from "./config";
import { readSetting, writeSetting } from "../../../db/store/trace-import";
import { describeImport, importTraceInto } from "./run";

export type { SourceReport };

/** Files a trace directory holds that are imported. */
export const TRACE_FILE = /\.jsonl(\.gz)?$/i;
/** Files remembered per source (oldest forgotten first). */
const MAX_REMEMBERED = 10_000;

type Seen = Record<string, { size: number; mtimeMs: number }>;

/** The trace files of a listing that are new or changed since `seen` (by size and mtime), oldest first. */
export function filesToImport(
  listing: readonly { name: string; size: number; mtimeMs: number }[],
  seen: Seen,
): string[] {
  return listing
    .filter((f) => TRACE_FILE.test(f.name) && (seen[f.name]?.size !== f.size || seen[f.name]?.mtimeMs !== f.mtimeMs))
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name))
    .map((f) => f.name);
}

/**
 * Poll a directory for new or grown *.jsonl / *.jsonl.gz Dynamo traces and import each once (what was imported is
 * remembered by name, size and mtime in the settings table, so a restart does not import again); returns stop().
 * A grown file is read again whole: its earlier records come back as duplicates and change nothing. On either engine:
 * events through the sink's ingest, the KV state and the memory of files on its store.
 */
export function startTraceDirSource(
  sink: SourceSink,
  id: string,
  config: z.output<typeof traceDirConfig>,
  report: SourceReport,
): () => Promise<void> {
  const key = `trace-dir:${id}:seen`;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const poll = async () => {
    const started = Date.now();
    const seen = JSON.parse((await readSetting(sink.store, key)) ?? "{}") as Seen;
    let listing: { name: string; size: number; mtimeMs: number }[];
    try {
      const names = (await readdir(config.path)).filter((n) => TRACE_FILE.test(n));
      listing = [];
      for (const name of names) {
        const s = await stat(path.join(config.path, name)).catch(() => null);
        if (s?.isFile()) listing.push({ name, size: s.size, mtimeMs: s.mtimeMs });
      }
    } catch (err) {
      await report.error(
        Date.now(),
        `cannot read ${config.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
      return;
    }
    let events = 0;
    const notes: string[] = [];
    let failed: string | null = null;
    for (const name of filesToImport(listing, seen)) {
      if (stopped) break;
      const file = listing.find((f) => f.name === name)!;
      try {
        const summary = await importTraceInto(sink, name, createReadStream(path.join(config.path, name)));
        events += summary.accepted;
        notes.push(describeImport(summary));
        if (summary.fatal) failed = describeImport(summary);
      } catch (err) {
        failed = `${name}: ${(err as Error).message}`;
        continue;
      }
      seen[name] = { size: file.size, mtimeMs: file.mtimeMs };
      const names = Object.keys(seen);
      for (const old of names.slice(0, Math.max(0, names.length - MAX_REMEMBERED))) delete seen[old];
      await writeSetting(sink.store, key, JSON.stringify(seen), Date.now());
    }
    if (failed) await report.error(Date.now(), failed);
    else
      await report.ok(Date.now(), {
        events,
        durationMs: Date.now() - started,
        detail: { files: Object.keys(seen).length, ...(notes.length && { last: notes.slice(-5) }) },
      });
  };

  const loop = () => {
    if (stopped) return;
    running = poll()
      .catch((err) => report.error(Date.now(), `trace import failed: ${(err as Error).message}`))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, config.poll_seconds * 1_000);
      });
  };
  loop();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
