import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { asc, count, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { sessionChainsOf } from "../../../db/store/export";
import type { Store } from "../../../db/store/store";
import { traceRows } from "../../../db/store/trace";
import { minimal } from "../../../test/events";
import type { SinkEngine } from "../sink.cases";
import type { SourceSink } from "../status";
import { importMooncakeInto } from "../mooncake/import";
import { importTraceInto } from "./run";

// Trace imports stored through an engine's own ingest and read back from its store, written once: import.test.ts
// runs them on SQLite, import.pg.test.ts on PostgreSQL. Bad input (bad lines, a cut gzip, a refused Mooncake file)
// must leave what an earlier import stored as it was.

const read = (name: string) => readFileSync(path.join(__dirname, "fixtures", name));

async function* chunks(bytes: Uint8Array, size = 97) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const sessionTurns = async (s: Store, sessionId: string) => {
  const r = s.t.requestReads;
  const rows = await s.db
    .select({ id: r.requestId })
    .from(r)
    .where(eq(r.sessionId, sessionId))
    .orderBy(asc(r.arrivedAt));
  return rows.map((x) => x.id);
};

const requestCount = async (s: Store) => (await s.db.select({ n: count() }).from(s.t.requestReads))[0]!.n;

/** The agent fixture's first line repeated n times under request ids cmpl-<prefix><i>. */
const repeatedTurns = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    read("agent-trace.jsonl").toString("utf8").split("\n")[0]!.replace("cmpl-1", `cmpl-${prefix}${i}`),
  ).join("\n");

export function importCases(e: SinkEngine): void {
  describe.skipIf(e.skip)(`trace imports through ${e.engine}'s ingest`, () => {
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      await Promise.all(closing.splice(0).map((c) => c()));
    });
    const open = async (): Promise<SourceSink> => {
      const { sink, close } = await e.open();
      closing.push(close);
      return sink;
    };

    it("imports a gzip agent trace, keeps good records, reports bad lines by number, and changes nothing the second time", async () => {
      const sink = await open();
      const gz = gzipSync(read("agent-trace.jsonl"));
      const first = await importTraceInto(sink, "agent.jsonl.gz", chunks(gz));
      expect(first).toMatchObject({
        name: "agent.jsonl.gz",
        bytes: gz.length,
        records: 9,
        badLines: 3,
        accepted: 4,
        duplicate: 0,
        rejected: 1,
        fatal: null,
      });
      expect(first.errors).toEqual([
        { line: 3, message: "not valid JSON" },
        { line: 5, message: "request.request_id is missing" },
        { line: 10, message: expect.stringMatching(/unknown schema/) },
        { line: 7, message: expect.stringMatching(/^input_tokens/) },
      ]);
      expect(await sessionTurns(sink.store, "dyn-s1")).toEqual(["cmpl-1", "cmpl-3"]);
      const chains = await sessionChainsOf(sink.store, "dyn-s1");
      expect(chains.get("cmpl-3")?.sequence_hashes).toEqual([
        "14879255164371896291",
        "274632075616497421",
        "18446744073709551615",
      ]);
      const { tools } = await traceRows(sink.store, "dyn-s1");
      expect(tools.map((t) => ({ toolCallId: t.toolCallId, status: t.status }))).toEqual([
        { toolCallId: "call-1", status: "succeeded" },
        { toolCallId: "call-9", status: "cancelled" },
      ]);
      const again = await importTraceInto(sink, "agent.jsonl.gz", chunks(gz));
      expect(again).toMatchObject({ accepted: 0, duplicate: 4 });
    });

    it("keeps the records before a gzip truncation, says the file ended early, and leaves earlier imports stored", async () => {
      const sink = await open();
      const before = await importTraceInto(sink, "whole.jsonl", chunks(Buffer.from(repeatedTurns("w", 50))));
      expect(before).toMatchObject({ records: 50, badLines: 0, fatal: null });
      expect(await requestCount(sink.store)).toBe(50);
      const gz = gzipSync(repeatedTurns("t", 400));
      const s = await importTraceInto(sink, "cut.jsonl.gz", chunks(gz.subarray(0, Math.floor(gz.length * 0.6))));
      expect(s.fatal).toMatch(/ends early \(truncated file\)/);
      expect(s.records).toBeGreaterThan(0);
      expect(s.records).toBeLessThan(400);
      expect(await requestCount(sink.store)).toBe(50 + s.records);
      const bad = await importTraceInto(sink, "bad.jsonl", chunks(Buffer.from('{"event": nope\n')));
      expect(bad).toMatchObject({
        records: 1,
        badLines: 1,
        accepted: 0,
        errors: [{ line: 1, message: "not valid JSON" }],
      });
      expect(await requestCount(sink.store)).toBe(50 + s.records);
    });

    it("refuses a Mooncake trace with a bad line whole, storing none of it and keeping what was there", async () => {
      const sink = await open();
      const good = '{"timestamp": 0, "input_length": 1024, "output_length": 8, "hash_ids": [1, 2]}';
      const ok = await importMooncakeInto(sink, "good.jsonl", chunks(Buffer.from(`${good}\n${good}\n`)), {
        blockSize: 512,
        startMs: 1_764_400_000_000,
        now: 1_764_400_100_000,
      });
      expect(ok).toMatchObject({ records: 2, accepted: 2, fatal: null });
      const refused = await importMooncakeInto(
        sink,
        "bad.jsonl",
        chunks(Buffer.from(`${good}\n{"timestamp": "x"}\n`)),
        {
          blockSize: 512,
          startMs: 1_764_400_200_000,
          now: 1_764_400_300_000,
        },
      );
      expect(refused.fatal).toMatch(/^bad\.jsonl:2: /);
      expect(refused.accepted).toBe(0);
      expect(await requestCount(sink.store)).toBe(2);
    });

    it("turns forward-pass samples into load samples per worker and rank, one per second, carrying the worker's last KV state", async () => {
      const sink = await open();
      const seed = minimal["worker.stats"]({
        id: "k",
        ts: 1_764_399_999_000,
        worker_id: "4192",
        kv_active_blocks: 100,
        kv_total_blocks: 8192,
        requests_running: 1,
        requests_waiting: 0,
        prefix_query_tokens: "5000",
        prefix_hit_tokens: "4000",
      });
      expect((await sink.submit([seed])).accepted).toBe(1);
      const s = await importTraceInto(sink, "fpm.jsonl", chunks(read("fpm-trace.jsonl")));
      expect(s).toMatchObject({
        records: 5,
        accepted: 3,
        badLines: 1,
        gaps: 1,
        errors: [{ line: 5, message: "fpm.worker_id is missing" }],
      });
      const w = sink.store.t.workerStats;
      const rows = await sink.store.db
        .select({
          worker_id: w.workerId,
          ts: w.ts,
          requests_running: w.requestsRunning,
          requests_waiting: w.requestsWaiting,
          kv_total_blocks: w.kvTotalBlocks,
          prefix_hit_tokens: w.prefixHitTokens,
        })
        .from(w)
        .where(eq(w.source, "dynamo-trace"))
        .orderBy(asc(w.ts), asc(w.workerId));
      expect(rows).toEqual([
        {
          worker_id: "4192",
          ts: 1_764_400_000_000,
          requests_running: 5,
          requests_waiting: 1,
          kv_total_blocks: 8192,
          prefix_hit_tokens: "4000",
        },
        {
          worker_id: "4192",
          ts: 1_764_400_005_000,
          requests_running: 5,
          requests_waiting: 5,
          kv_total_blocks: 8192,
          prefix_hit_tokens: "4000",
        },
        {
          worker_id: "4192-dp1",
          ts: 1_764_400_005_000,
          requests_running: 2,
          requests_waiting: 0,
          kv_total_blocks: 0,
          prefix_hit_tokens: "0",
        },
      ]);
    });
  });
}
