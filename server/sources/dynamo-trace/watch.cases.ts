import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { count, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SinkEngine } from "../sink.cases";
import type { Confinement } from "../../files/confined-path";
import type { SourceSeen, SourceSink } from "../status";
import { startTraceDirSource } from "./watch";

// A watched trace directory on an engine, written once: watch.test.ts runs it on SQLite, watch.pg.test.ts on
// PostgreSQL (events through that engine's ingest, the memory of imported files in its settings rows).

const line = (id: string, t: number) =>
  JSON.stringify({
    timestamp: 1,
    event: {
      schema: "dynamo.agent.trace.v1",
      event_type: "request_end",
      event_time_unix_ms: t,
      agent_context: { session_id: "watched" },
      request: { request_id: id, model: "m", input_tokens: 10, output_tokens: 1 },
    },
  });

const WAIT = { timeout: 15_000, interval: 100 };

export function watchCases(e: SinkEngine): void {
  describe.skipIf(e.skip)(`startTraceDirSource on ${e.engine}`, () => {
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of closing.splice(0).reverse()) await c();
    });
    /** A temp import folder (by real path) as the watcher's confinement, and a folder outside it with a trace. */
    const folders = async () => {
      const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "switchyard-trace-dir-")));
      closing.push(() => rm(root, { recursive: true, force: true }));
      const outside = path.join(root, "outside");
      await mkdir(outside);
      await writeFile(path.join(outside, "secret.jsonl"), `${line("w-outside", 1_764_400_000_000)}\n`);
      const imports: Confinement = {
        folder: path.join(root, "imports"),
        field: "config.path",
        setting: "SWITCHYARD_IMPORT_DIR",
      };
      return { root, outside, imports };
    };
    const open = async (): Promise<SourceSink> => {
      const { sink, close } = await e.open();
      closing.push(close);
      return sink;
    };

    it("imports files already there, then a new file, each once, and reports each pass", async () => {
      const { imports } = await folders();
      const dir = path.join(imports.folder, "traces");
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, "a.jsonl"), `${line("w-1", 1_764_400_000_000)}\n`);
      const sink = await open();
      const oks: SourceSeen[] = [];
      const errors: string[] = [];
      const report = {
        ok: async (_: number, seen: SourceSeen) => void oks.push(seen),
        error: async (_: number, m: string) => void errors.push(m),
      };
      const stop = startTraceDirSource(sink, "dir1", { path: "traces", poll_seconds: 1 }, report, imports);
      const r = sink.store.t.requestReads;
      const watched = async () =>
        (await sink.store.db.select({ n: count() }).from(r).where(eq(r.sessionId, "watched")))[0]!.n;
      await vi.waitFor(async () => expect(await watched()).toBe(1), WAIT);
      await writeFile(
        path.join(dir, "b.jsonl.gz"),
        gzipSync(`${line("w-2", 1_764_400_001_000)}\n${line("w-3", 1_764_400_002_000)}\n`),
      );
      await vi.waitFor(async () => expect(await watched()).toBe(3), WAIT);
      await vi.waitFor(() => expect(oks.length).toBeGreaterThanOrEqual(3), WAIT);
      await stop();
      expect(errors).toEqual([]);
      expect(oks.reduce((s, o) => s + (o.events ?? 0), 0)).toBe(3);
      expect(oks.at(-1)!.events).toBe(0);

      const again: SourceSeen[] = [];
      const stop2 = startTraceDirSource(
        sink,
        "dir1",
        { path: "traces", poll_seconds: 1 },
        { ok: async (_, s) => void again.push(s), error: async () => {} },
        imports,
      );
      await vi.waitFor(() => expect(again.length).toBe(1), WAIT);
      await stop2();
      expect(again[0]!.events).toBe(0);
    });

    /** The first error a watcher of `name` reports, then stopped. */
    const firstError = async (sink: SourceSink, imports: Confinement, name: string) => {
      const errors: string[] = [];
      const stop = startTraceDirSource(
        sink,
        "dir2",
        { path: name, poll_seconds: 1 },
        { ok: async () => {}, error: async (_, m) => void errors.push(m) },
        imports,
      );
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), WAIT);
      await stop();
      return errors[0]!;
    };

    it("reports an outside or refused folder by its rule alone, and a missing inside one as not there yet", async () => {
      const { root, outside, imports } = await folders();
      const sink = await open();
      const absolute = "config.path: must be a relative folder name inside SWITCHYARD_IMPORT_DIR (no absolute path)";
      expect(await firstError(sink, imports, "/nonexistent/switchyard-traces")).toBe(absolute);
      expect(await firstError(sink, imports, outside)).toBe(absolute);
      expect(await firstError(sink, imports, "../outside")).toMatch(/\(no "\.\." component\)$/);
      expect(await firstError(sink, imports, "later")).toBe(
        'config.path "later" inside SWITCHYARD_IMPORT_DIR does not exist yet',
      );
      await symlink(outside, path.join(imports.folder, "linked"));
      expect(await firstError(sink, imports, "linked")).toMatch(/\(no symbolic link at any part of the path\)$/);
      for (const m of [await firstError(sink, imports, "linked"), await firstError(sink, imports, "later")])
        expect(m).not.toContain(root);
    });

    it("skips a trace file that is a link to a file outside", async () => {
      const { outside, imports } = await folders();
      const dir = path.join(imports.folder, "traces");
      await mkdir(dir, { recursive: true });
      await symlink(path.join(outside, "secret.jsonl"), path.join(dir, "a.jsonl"));
      await writeFile(path.join(dir, "b.jsonl"), `${line("w-inside", 1_764_400_000_000)}\n`);
      const sink = await open();
      const oks: SourceSeen[] = [];
      const stop = startTraceDirSource(
        sink,
        "dir3",
        { path: "traces", poll_seconds: 1 },
        { ok: async (_, seen) => void oks.push(seen), error: async () => {} },
        imports,
      );
      await vi.waitFor(() => expect(oks.length).toBeGreaterThan(0), WAIT);
      await stop();
      const r = sink.store.t.requestReads;
      const ids = await sink.store.db.select({ id: r.requestId }).from(r).where(eq(r.sessionId, "watched"));
      expect(ids.map((x) => x.id)).toEqual(["w-inside"]);
    });
  });
}
