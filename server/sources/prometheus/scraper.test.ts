import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { getSourceStatus } from "../../../db/store/sources";
import { sqliteStore } from "../../../db/store/store";
import { sqliteSink } from "../sink";
import { testDb } from "../../../test/db";
import { sourceReporter } from "../status";
import { prometheusSourceConfig } from "./config";
import { VLLM_NEW } from "./fixtures";
import { emptyState } from "./map";
import { scrapeOnce, startPrometheusSource } from "./scraper";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
const servers: http.Server[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const text =
  (body: string, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "text/plain; version=0.0.4" });
    res.end(body);
  };

async function once(body: Handler | string, extra: Record<string, unknown> = {}) {
  const db = testDb();
  const url = typeof body === "string" ? body : await serve(body);
  const config = prometheusSourceConfig.parse({ url, kind: "vllm", worker_id: "w", ...extra });
  await scrapeOnce(
    sqliteSink(db),
    "t",
    config,
    sourceReporter(sqliteStore(db), "t", "prometheus", "target"),
    emptyState(),
  );
  return { db, status: (await getSourceStatus(sqliteStore(db), "t"))! };
}

describe("scrapeOnce", () => {
  it("a good scrape is ok with its series count, duration and the submitted event", async () => {
    const { db, status } = await once(text(VLLM_NEW()));
    expect(status).toMatchObject({
      lastError: null,
      errorCount: 0,
      series: 9,
      eventsTotal: 1,
      missing: [],
      renamed: [],
    });
    expect(status.lastSuccessAt).not.toBeNull();
    expect(status.durationMs).toBeGreaterThanOrEqual(0);
    expect(db.$client.prepare("SELECT worker_id, kv_total_blocks, prefix_hit_tokens FROM worker_stats").all()).toEqual([
      { worker_id: "w", kv_total_blocks: 8192, prefix_hit_tokens: "600" },
    ]);
  });

  it("malformed lines are reported while the good series still count", async () => {
    const { status } = await once(text(VLLM_NEW() + "garbage line here\n"));
    expect(status.lastSuccessAt).not.toBeNull();
    expect(status.series).toBe(9);
    expect(status.detail.problems).toEqual([expect.stringMatching(/^line \d+: malformed: garbage line here$/)]);
  });

  it.each([
    ["an HTTP error", text("oops", 503), {}, /^HTTP 503 from http:\/\/127\.0\.0\.1:\d+\/metrics$/],
    ["an HTML page", text("<html><body>login</body></html>"), {}, /^no series in response: line 1: malformed: <html>/],
    ["a target that never answers", (() => {}) as Handler, { timeout_seconds: 0.2 }, /^timed out after 200 ms$/],
    [
      "an unrecognised exposition under auto",
      text("process_cpu_seconds_total 3\n"),
      { kind: "auto" },
      /kind not detected/,
    ],
  ])("%s is an error with a clear message and nothing stored", async (_name, handler, extra, message) => {
    const { db, status } = await once(handler, extra);
    expect(status.lastSuccessAt).toBeNull();
    expect(status.errorCount).toBe(1);
    expect(status.lastError).toMatch(message);
    expect(db.$client.prepare("SELECT count(*) AS n FROM worker_stats").get()).toEqual({ n: 0 });
  });

  it("a refused connection says the target cannot be reached", async () => {
    const url = await serve(text(""));
    await new Promise((r) => servers.pop()!.close(r));
    const { status } = await once(url);
    expect(status.lastError).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+\/metrics: ECONNREFUSED$/);
  });
});

describe("startPrometheusSource", () => {
  it("scrapes a real endpoint on its interval into the database until stopped", async () => {
    const db = testDb();
    let scrapes = 0;
    const url = await serve((req, res) => {
      scrapes++;
      text(VLLM_NEW({ queries: 1000 * scrapes, hits: 500 * scrapes, running: scrapes }))(req, res);
    });
    const config = prometheusSourceConfig.parse({ url, kind: "auto", worker_id: "live", interval_seconds: 1 });
    const report = sourceReporter(sqliteStore(db), "live-src", "prometheus", "live");
    const stop = startPrometheusSource(sqliteSink(db), "live-src", config, report);
    await expect.poll(() => scrapes, { timeout: 5_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    await stop();
    const seenAtStop = scrapes;
    const rows = db.$client
      .prepare("SELECT requests_running, prefix_query_tokens FROM worker_stats WHERE worker_id = 'live' ORDER BY ts")
      .all() as { requests_running: number; prefix_query_tokens: string }[];
    expect(rows.slice(0, 2)).toEqual([
      { requests_running: 1, prefix_query_tokens: "1000" },
      { requests_running: 2, prefix_query_tokens: "2000" },
    ]);
    const status = (await getSourceStatus(sqliteStore(db), "live-src"))!;
    expect(status.successCount).toBe(seenAtStop);
    expect(status.detail).toMatchObject({ detected_kind: "vllm", workers: ["live"] });
    expect((status.detail.aggregates as { prefix_hit_rate: number }).prefix_hit_rate).toBeCloseTo(0.5);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(scrapes).toBe(seenAtStop);
  });
});
