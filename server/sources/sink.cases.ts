import http from "node:http";
import type { AddressInfo } from "node:net";
import { asc, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getSourceStatus } from "../../db/store/sources";
import { testDb } from "../../test/db";
import { freshPg, PG_TEST_URL } from "../../test/pg";
import { prometheusSourceConfig } from "../../lib/sources/prometheus-config";
import { VLLM_NEW } from "./prometheus/fixtures";
import { emptyState } from "./prometheus/map";
import { scrapeOnce } from "./prometheus/scraper";
import { pgSink, sqliteSink } from "./sink";
import { sourceReporter, type SourceSink } from "./status";

// A running source stores its events through its engine's own ingest and its status on that engine's store (written
// once: sink.test.ts runs it on SQLite, sink.pg.test.ts on PostgreSQL).

export type SinkEngine = { engine: "SQLite" | "PostgreSQL"; skip: boolean; open: () => Promise<OpenSink> };
type OpenSink = { sink: SourceSink; close: () => Promise<void> };

export const SQLITE_SINK: SinkEngine = {
  engine: "SQLite",
  skip: false,
  open: async () => {
    const db = testDb();
    return { sink: sqliteSink(db), close: async () => void db.$client.close() };
  },
};

export const POSTGRES_SINK: SinkEngine = {
  engine: "PostgreSQL",
  skip: !PG_TEST_URL,
  open: async () => {
    const { pg, drop } = await freshPg();
    return { sink: pgSink(pg), close: drop };
  },
};

export function sinkCases(e: SinkEngine): void {
  describe.skipIf(e.skip)(`a scrape stored through ${e.engine}'s ingest`, () => {
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      await Promise.all(closing.splice(0).map((c) => c()));
    });
    const serve = async (bodies: string[]) => {
      const server = http.createServer((_req, res) => {
        const body = bodies.shift();
        res.writeHead(body ? 200 : 503, { "content-type": "text/plain" }).end(body ?? "gone");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      closing.push(() => new Promise((r) => server.close(() => r())));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    };

    it("two scrapes become the worker's samples and the source's status; a failed one counts as an error", async () => {
      const { sink, close } = await e.open();
      closing.push(close);
      const url = await serve([VLLM_NEW({ running: 3 }), VLLM_NEW({ running: 5, queries: 2000, hits: 1400 })]);
      const config = prometheusSourceConfig.parse({ url, kind: "vllm", worker_id: "w9" });
      const report = sourceReporter(sink.store, "vllm-9", "prometheus", "vLLM 9");
      let state = emptyState();
      const T = 1_764_400_000_000;
      for (const at of [T, T + 15_000, T + 30_000])
        state = await scrapeOnce(sink, "vllm-9", config, report, state, { now: () => at });
      const { workerStats } = sink.store.t;
      const rows = await sink.store.db
        .select({ ts: workerStats.ts, running: workerStats.requestsRunning })
        .from(workerStats)
        .where(eq(workerStats.workerId, "w9"))
        .orderBy(asc(workerStats.ts));
      expect(rows).toEqual([
        { ts: T, running: 3 },
        { ts: T + 15_000, running: 5 },
      ]);
      expect(await getSourceStatus(sink.store, "vllm-9")).toMatchObject({
        kind: "prometheus",
        name: "vLLM 9",
        successCount: 2,
        eventsTotal: 2,
        errorCount: 1,
        lastSuccessAt: T + 15_000,
        lastErrorAt: T + 30_000,
        lastError: expect.stringContaining("503"),
        series: expect.any(Number),
        detail: expect.objectContaining({ detected_kind: "vllm", workers: ["w9"] }),
      });
    });
  });
}
