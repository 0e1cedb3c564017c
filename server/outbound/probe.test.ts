import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { getSource } from "../../db/store/sources";
import { sqliteStore } from "../../db/store/store";
import { testCaller, testDb } from "../../test/db";
import type { Actor } from "../auth/roles";
import { emptyState } from "../sources/prometheus/map";
import { scrapeOnce } from "../sources/prometheus/scraper";
import { prometheusSourceConfig } from "../../lib/sources/prometheus-config";
import { sqliteSink } from "../sources/sink";
import { sourceReporter } from "../sources/status";

// The probe of issue 32 through the procedures: a source pointed at a page that is not metrics shows viewers a fixed
// reason, never the page; a source or target aimed at a denied address is refused when saved.

const VIEWER: Actor = { kind: "user", id: 2, name: "viewer", role: "viewer" };
const SECRET = "db-password=correct-horse-4711";
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function secretPage(): Promise<string> {
  const server = http.createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(`<html><body>${SECRET}</body></html>\n`),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

describe("outbound probe through the procedures", () => {
  it("a viewer sees 'not Prometheus text: line 1' for a secret page, not the page", async () => {
    const db = testDb();
    const url = await secretPage();
    const source = { id: "probe", name: "Probe", kind: "prometheus" as const, config: { url, kind: "auto" as const } };
    await testCaller(db).sources.upsert({ source, create: true });
    const stored = (await getSource(sqliteStore(db), "probe"))!;
    const report = sourceReporter(sqliteStore(db), "probe", "prometheus", "Probe", { configured: true });
    await scrapeOnce(sqliteSink(db), "probe", prometheusSourceConfig.parse(stored.config), report, emptyState());
    const list = await testCaller(db, Date.now, VIEWER).sources.list();
    expect(list).toMatchObject([{ id: "probe", state: "error", lastError: "not Prometheus text: line 1" }]);
    expect(JSON.stringify(list)).not.toContain("correct-horse");
  });

  it.each([
    ["http://169.254.169.254/metrics", "config.url: 169.254.169.254 is refused by SWITCHYARD_OUTBOUND_DENY"],
    [
      "http://[::ffff:169.254.169.254]/metrics",
      "config.url: [::ffff:a9fe:a9fe] is refused by SWITCHYARD_OUTBOUND_DENY",
    ],
    ["http://metadata.google.internal./x", "config.url: metadata.google.internal. is refused by"],
  ])("a source at %s is refused with 422, nothing stored", async (url, message) => {
    const db = testDb();
    const source = { id: "meta", name: "Meta", kind: "prometheus" as const, config: { url, kind: "auto" as const } };
    const error = await testCaller(db)
      .sources.upsert({ source, create: true })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNPROCESSABLE_CONTENT", message: expect.stringContaining(message) });
    expect(await getSource(sqliteStore(db), "meta")).toBeNull();
  });

  it("a ZMQ endpoint and a policy target at a metadata address are refused when saved", async () => {
    const db = testDb();
    const api = testCaller(db);
    const zmq = { id: "kv", name: "KV", kind: "zmq-kv" as const, config: { worker_id: "w" } };
    await expect(
      api.sources.upsert({ source: { ...zmq, config: { ...zmq.config, endpoint: "tcp://169.254.169.254:5557" } } }),
    ).rejects.toMatchObject({
      code: "UNPROCESSABLE_CONTENT",
      message: "config.endpoint: 169.254.169.254 is refused by SWITCHYARD_OUTBOUND_DENY",
    });
    const target = {
      id: "fe",
      name: "Frontend",
      adapter: "dynamo-busy-threshold" as const,
      config: { url: "http://metadata.google.internal", model: "m" },
      kinds: ["routing" as const],
    };
    await expect(api.policies.targets.upsert({ target })).rejects.toMatchObject({
      code: "UNPROCESSABLE_CONTENT",
      message: "config.url: metadata.google.internal is refused by SWITCHYARD_OUTBOUND_DENY",
    });
    expect(await api.policies.targets.list()).toEqual([]);
    await api.policies.targets.upsert({ target: { ...target, config: { url: "http://127.0.0.1:1", model: "m" } } });
    expect(await api.policies.targets.list()).toHaveLength(1);
  });
});
