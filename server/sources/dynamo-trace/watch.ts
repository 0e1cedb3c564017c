import { constants } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import { ConfinedPathError, fsErrorCode, inspectConfinedFolder, type Confinement } from "../../files/confined-path";
import { importFolder } from "../../files/folders";
import type { SourceReport, SourceSink } from "../status";
import type { traceDirConfig } from "../../../lib/sources/dynamo-trace-config";
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
 * Poll a folder inside SWITCHYARD_IMPORT_DIR for new or grown *.jsonl / *.jsonl.gz Dynamo traces and import each once
 * (what was imported is remembered by name, size and mtime in the settings table, so a restart does not import again);
 * returns stop(). A grown file is read again whole: its earlier records come back as duplicates and change nothing.
 * The folder's name is checked on every pass (a refused one, or a link planted since, is reported by its rule and
 * nothing is read); links among the files are skipped. On either engine: events through the sink's ingest, the KV
 * state and the memory of files on its store.
 */
export function startTraceDirSource(
  sink: SourceSink,
  id: string,
  config: z.output<typeof traceDirConfig>,
  report: SourceReport,
  folder: Confinement = importFolder(),
): () => Promise<void> {
  const key = `trace-dir:${id}:seen`;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const poll = async () => {
    const started = Date.now();
    const seen = JSON.parse((await readSetting(sink.store, key)) ?? "{}") as Seen;
    const listed = await listTraceFiles(folder, config.path);
    if (!listed.ok) {
      await report.error(Date.now(), listed.error);
      return;
    }
    const { dir, listing } = listed;
    let events = 0;
    const notes: string[] = [];
    let failed: string | null = null;
    for (const name of filesToImport(listing, seen)) {
      if (stopped) break;
      const file = listing.find((f) => f.name === name)!;
      try {
        const handle = await open(path.join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
        const summary = await importTraceInto(sink, name, handle.createReadStream()).finally(() =>
          handle.close().catch(() => {}),
        );
        events += summary.accepted;
        notes.push(describeImport(summary));
        if (summary.fatal) failed = describeImport(summary);
      } catch (err) {
        failed = `${name}: ${fsErrorCode(err)}`;
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
      .catch((err) => report.error(Date.now(), `trace import failed: ${fsErrorCode(err)}`))
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

type Listed =
  { ok: true; dir: string; listing: { name: string; size: number; mtimeMs: number }[] } | { ok: false; error: string };

/** The regular trace files of the confined folder (links skipped); errors name the rule, never a path outside. */
async function listTraceFiles(folder: Confinement, name: string): Promise<Listed> {
  const where = `${folder.field} "${name}" inside ${folder.setting}`;
  try {
    const { dir, exists } = await inspectConfinedFolder(folder, name);
    if (!exists) return { ok: false, error: `${where} does not exist yet` };
    const listing = [];
    for (const file of (await readdir(dir)).filter((n) => TRACE_FILE.test(n))) {
      const s = await lstat(path.join(dir, file)).catch(() => null);
      if (s?.isFile()) listing.push({ name: file, size: s.size, mtimeMs: s.mtimeMs });
    }
    return { ok: true, dir, listing };
  } catch (err) {
    if (err instanceof ConfinedPathError) return { ok: false, error: err.message };
    return { ok: false, error: `cannot read ${where}: ${fsErrorCode(err)}` };
  }
}
