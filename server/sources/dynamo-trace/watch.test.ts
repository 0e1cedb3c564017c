import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testDb } from "../../../test/db";
import { sqliteSink } from "../sink";
import type { SourceSeen } from "../status";
import { traceDirConfig } from "./config";
import { filesToImport, startTraceDirSource } from "./watch";

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

describe("filesToImport", () => {
  it.each([
    [
      "new trace files, oldest first; other files skipped",
      [
        { name: "b.jsonl.gz", size: 1, mtimeMs: 2 },
        { name: "a.jsonl", size: 1, mtimeMs: 1 },
        { name: "notes.txt", size: 1, mtimeMs: 0 },
      ],
      {},
      ["a.jsonl", "b.jsonl.gz"],
    ],
    [
      "unchanged files are not imported again",
      [{ name: "a.jsonl", size: 1, mtimeMs: 1 }],
      { "a.jsonl": { size: 1, mtimeMs: 1 } },
      [],
    ],
    [
      "grown files are",
      [{ name: "a.jsonl", size: 9, mtimeMs: 3 }],
      { "a.jsonl": { size: 1, mtimeMs: 1 } },
      ["a.jsonl"],
    ],
  ])("%s", (_, listing, seen, want) => expect(filesToImport(listing, seen)).toEqual(want));
});

describe("traceDirConfig", () => {
  it("defaults poll_seconds to 5 and names a bad field", () => {
    expect(traceDirConfig.parse({ path: "/x" })).toEqual({ path: "/x", poll_seconds: 5 });
    expect(traceDirConfig.safeParse({ path: "" }).error?.issues[0]?.path).toEqual(["path"]);
    expect(traceDirConfig.safeParse({ path: "/x", poll_seconds: 0 }).error?.issues[0]?.path).toEqual(["poll_seconds"]);
  });
});

describe("startTraceDirSource", () => {
  let dir = "";
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("imports files already there, then a new file, each once, and reports each pass", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "switchyard-trace-dir-"));
    await writeFile(path.join(dir, "a.jsonl"), `${line("w-1", 1_764_400_000_000)}\n`);
    const db = testDb();
    const oks: SourceSeen[] = [];
    const errors: string[] = [];
    const report = {
      ok: async (_: number, seen: SourceSeen) => void oks.push(seen),
      error: async (_: number, m: string) => void errors.push(m),
    };
    const stop = startTraceDirSource(sqliteSink(db), "dir1", { path: dir, poll_seconds: 1 }, report);
    const count = () => db.$client.prepare("SELECT count(*) FROM requests WHERE session_id = 'watched'").pluck().get();
    await vi.waitFor(() => expect(count()).toBe(1), { timeout: 5_000 });
    await writeFile(
      path.join(dir, "b.jsonl.gz"),
      gzipSync(`${line("w-2", 1_764_400_001_000)}\n${line("w-3", 1_764_400_002_000)}\n`),
    );
    await vi.waitFor(() => expect(count()).toBe(3), { timeout: 5_000 });
    await vi.waitFor(() => expect(oks.length).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
    await stop();
    expect(errors).toEqual([]);
    expect(oks.reduce((s, o) => s + (o.events ?? 0), 0)).toBe(3);
    expect(oks.at(-1)!.events).toBe(0);

    const again: SourceSeen[] = [];
    const stop2 = startTraceDirSource(
      sqliteSink(db),
      "dir1",
      { path: dir, poll_seconds: 1 },
      { ok: async (_, s) => void again.push(s), error: async () => {} },
    );
    await vi.waitFor(() => expect(again.length).toBe(1), { timeout: 5_000 });
    await stop2();
    expect(again[0]!.events).toBe(0);
  });

  it("does not start without a SQLite connection (on PostgreSQL): the manager reports why", () => {
    const sink = { ...sqliteSink(testDb()), sqlite: null };
    const report = { ok: async () => {}, error: async () => {} };
    expect(() => startTraceDirSource(sink, "dir3", { path: "/tmp", poll_seconds: 1 }, report)).toThrow(
      /SQLite only so far/,
    );
  });

  it("reports a directory it cannot read", async () => {
    const errors: string[] = [];
    const stop = startTraceDirSource(
      sqliteSink(testDb()),
      "dir2",
      { path: "/nonexistent/switchyard-traces", poll_seconds: 1 },
      { ok: async () => {}, error: async (_, m) => void errors.push(m) },
    );
    await vi.waitFor(() => expect(errors[0]).toMatch(/cannot read .*ENOENT/), { timeout: 5_000 });
    await stop();
  });
});
