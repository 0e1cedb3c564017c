import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { count, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SinkEngine } from "../sink.cases";
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
    const open = async (): Promise<SourceSink> => {
      const { sink, close } = await e.open();
      closing.push(close);
      return sink;
    };

    it("imports files already there, then a new file, each once, and reports each pass", async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), "switchyard-trace-dir-"));
      closing.push(() => rm(dir, { recursive: true, force: true }));
      await writeFile(path.join(dir, "a.jsonl"), `${line("w-1", 1_764_400_000_000)}\n`);
      const sink = await open();
      const oks: SourceSeen[] = [];
      const errors: string[] = [];
      const report = {
        ok: async (_: number, seen: SourceSeen) => void oks.push(seen),
        error: async (_: number, m: string) => void errors.push(m),
      };
      const stop = startTraceDirSource(sink, "dir1", { path: dir, poll_seconds: 1 }, report);
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
        { path: dir, poll_seconds: 1 },
        { ok: async (_, s) => void again.push(s), error: async () => {} },
      );
      await vi.waitFor(() => expect(again.length).toBe(1), WAIT);
      await stop2();
      expect(again[0]!.events).toBe(0);
    });

    it("reports a directory it cannot read", async () => {
      const errors: string[] = [];
      const stop = startTraceDirSource(
        await open(),
        "dir2",
        { path: "/nonexistent/switchyard-traces", poll_seconds: 1 },
        { ok: async () => {}, error: async (_, m) => void errors.push(m) },
      );
      await vi.waitFor(() => expect(errors[0]).toMatch(/cannot read .*ENOENT/), WAIT);
      await stop();
    });
  });
}
