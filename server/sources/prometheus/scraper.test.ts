import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { getSourceStatus } from "../../../db/store/sources";
import { sqliteStore } from "../../../db/store/store";
import { sqliteSink } from "../sink";
import { testDb } from "../../../test/db";
import { sourceReporter } from "../status";
import { prometheusSourceConfig } from "../../../lib/sources/prometheus-config";
import { VLLM_NEW } from "./fixtures";
import { emptyState } from "./map";
import { fetchExposition, scrapeOnce, startPrometheusSource, withoutContent } from "./scraper";

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

const redirect =
  (location: string): Handler =>
  (_req, res) =>
    res.writeHead(302, { location }).end();

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
    expect(status.detail.problems).toEqual([expect.stringMatching(/^line \d+: malformed$/)]);
  });

  it.each([
    ["an HTTP error", text("oops", 503), {}, /^HTTP 503$/],
    ["an HTML page", text("<html><body>login</body></html>"), {}, /^not Prometheus text: line 1$/],
    ["a redirect", redirect("http://127.0.0.1:9/metrics"), {}, /^redirect not followed \(HTTP 302\)$/],
    ["a metadata address", "http://169.254.169.254/metrics", {}, /^refused by SWITCHYARD_OUTBOUND_DENY$/],
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

  it("a refused connection says so", async () => {
    const url = await serve(text(""));
    await new Promise((r) => servers.pop()!.close(r));
    const { status } = await once(url);
    expect(status.lastError).toBe("connection refused");
  });
});

describe("what a scrape shows of a reply", () => {
  const SECRET = "internal-admin-password-4711";

  it("a page that is not metrics shows its line number, never its text (the debug log has it)", async () => {
    const { status } = await once(text(`<html><title>${SECRET}</title></html>\nmore ${SECRET}\n`));
    expect(status.lastError).toBe("not Prometheus text: line 1");
    expect(JSON.stringify(status)).not.toContain(SECRET);
  });

  it("an error page's body is not shown", async () => {
    const { status } = await once(text(SECRET, 500));
    expect(status.lastError).toBe("HTTP 500");
    expect(JSON.stringify(status)).not.toContain(SECRET);
  });

  it("a redirect is not followed: its target is never requested", async () => {
    let hits = 0;
    const target = await serve((_req, res) => {
      hits++;
      text(VLLM_NEW())(_req, res);
    });
    const { status } = await once(redirect(target));
    expect(status.lastError).toBe("redirect not followed (HTTP 302)");
    expect(hits).toBe(0);
  });

  it("sends the headers given to fetchExposition with its own", async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const url = await serve((req, res) => {
      seen.push(req.headers);
      text(VLLM_NEW())(req, res);
    });
    expect(await fetchExposition(url, 2_000, undefined, { authorization: "Bearer t" })).toContain("vllm:");
    expect(seen[0]).toMatchObject({ authorization: "Bearer t", accept: expect.stringContaining("text/plain") });
  });

  it.each(["http://x/metrics?y#z", "http://x/metrics?a=1", "http://x/metrics#z", "http://u:p@x/metrics"])(
    "%s is refused as a scrape URL",
    (url) => {
      expect(prometheusSourceConfig.safeParse({ url }).success).toBe(false);
    },
  );

  it("keeps the line number and drops the text of parse problems", () => {
    expect(withoutContent("line 12: malformed: password=hunter2")).toBe("line 12: malformed");
    expect(withoutContent("unparseable exposition: near hunter2")).toBe("unparseable exposition");
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
