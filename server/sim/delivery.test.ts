import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { chainStringsOf } from "../../db/sqlite/chains";
import { testDb } from "../../test/db";
import { minimal, T0 } from "../../test/events";
import { ingestBody } from "../ingest/ingest";
import { Delivery } from "./delivery";

type Received = {
  auth: string | undefined;
  type: string | undefined;
  dropped: string | string[] | undefined;
  source: string | string[] | undefined;
  lines: string[];
};

/** A fake /api/ingest that fails with `failStatus` while `down` is true. */
async function fakeDashboard() {
  const state = { down: false, failStatus: 503, received: [] as Received[], attempts: 0 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      state.attempts++;
      if (state.down) {
        res.writeHead(state.failStatus, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "down" }));
        return;
      }
      const lines = Buffer.concat(chunks).toString("utf8").split("\n").filter(Boolean);
      state.received.push({
        auth: req.headers.authorization,
        type: req.headers["content-type"],
        dropped: req.headers["x-switchyard-dropped-events"],
        source: req.headers["x-switchyard-source"],
        lines,
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: lines.length, duplicate: 0, rejected: 0, items: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ingest` };
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

const line = (i: number) =>
  JSON.stringify({ id: `e-${i}`, kind: "worker.down", ts: 1_764_400_000_000 + i, worker_id: "w1" });
const until = async (cond: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("Delivery", () => {
  it("posts NDJSON batches of at most 1000 events with the bearer token, in order", async () => {
    const { state, url } = await fakeDashboard();
    const d = new Delivery({ url, token: "tok", lingerMs: 5, log: () => {} });
    d.start();
    for (let i = 0; i < 2_500; i++) d.push(line(i));
    expect(await d.close(5_000)).toBe(0);
    expect(
      state.received.every((r) => r.auth === "Bearer tok" && r.type === "application/x-ndjson" && r.source === "sim"),
    ).toBe(true);
    expect(Math.max(...state.received.map((r) => r.lines.length))).toBeLessThanOrEqual(1_000);
    expect(state.received.flatMap((r) => r.lines)).toEqual(Array.from({ length: 2_500 }, (_, i) => line(i)));
    expect(d.stats).toMatchObject({ delivered: 2_500, buffered: 0, dropped: 0 });
  });

  it("keeps events while the dashboard is down, retries with backoff and resends when it returns", async () => {
    const { state, url } = await fakeDashboard();
    state.down = true;
    const logs: string[] = [];
    const d = new Delivery({
      url,
      token: "tok",
      lingerMs: 5,
      initialBackoffMs: 20,
      maxBackoffMs: 80,
      log: (l) => logs.push(l),
    });
    d.start();
    for (let i = 0; i < 300; i++) d.push(line(i));
    await until(() => state.attempts >= 4);
    expect(state.received).toEqual([]);
    expect(d.stats).toMatchObject({ buffered: 300, healthy: false });
    expect(logs[0]).toMatch(/dashboard answered 503; 300 events buffered, retrying in/);
    state.down = false;
    for (let i = 300; i < 400; i++) d.push(line(i));
    await until(() => d.stats.delivered === 400);
    expect(state.received.flatMap((r) => r.lines)).toEqual(Array.from({ length: 400 }, (_, i) => line(i)));
    expect(logs.at(-1)).toMatch(/reachable again after \d+ s; no events were lost/);
    await d.close(1_000);
  });

  it("drops the oldest events beyond its bound, counts them and reports the loss when delivery resumes", async () => {
    const { state, url } = await fakeDashboard();
    state.down = true;
    const logs: string[] = [];
    const d = new Delivery({
      url,
      token: "tok",
      lingerMs: 5,
      initialBackoffMs: 20,
      maxBackoffMs: 40,
      maxBufferEvents: 100,
      log: (l) => logs.push(l),
    });
    d.start();
    d.push(line(0));
    await until(() => state.attempts >= 1 && !d.stats.healthy);
    for (let i = 1; i < 250; i++) d.push(line(i));
    expect(d.stats).toMatchObject({ buffered: 100, dropped: 150 });
    expect(
      logs.filter((l) =>
        /buffer full \(100 events, 0\.0 MiB\) while the dashboard is unreachable; dropped \d+ oldest events so far/.test(
          l,
        ),
      ).length,
    ).toBe(1);
    state.down = false;
    await until(() => d.stats.buffered === 0);
    expect(state.received.flatMap((r) => r.lines)).toEqual(Array.from({ length: 100 }, (_, i) => line(150 + i)));
    expect(logs.at(-1)).toMatch(/150 events were dropped \(oldest first\) because the buffer was full/);
    expect(state.received.map((r) => r.dropped)).toContain("150");
    await d.close(1_000);
  });

  it("reports what it could not deliver when it has to stop", async () => {
    const { state, url } = await fakeDashboard();
    state.down = true;
    state.failStatus = 401;
    const logs: string[] = [];
    const d = new Delivery({ url, token: "bad", lingerMs: 5, initialBackoffMs: 20, log: (l) => logs.push(l) });
    d.start();
    for (let i = 0; i < 10; i++) d.push(line(i));
    expect(await d.close(200)).toBe(10);
    expect(logs[0]).toContain("dashboard answered 401 (check the ingest token)");
    expect(logs.at(-1)).toBe(
      "delivery: stopping with 10 events not delivered (dashboard unreachable); 0 dropped earlier",
    );
  });

  it("survives a dashboard that is not listening at all", async () => {
    const logs: string[] = [];
    const d = new Delivery({
      url: "http://127.0.0.1:9/api/ingest",
      token: "t",
      lingerMs: 5,
      initialBackoffMs: 20,
      log: (l) => logs.push(l),
    });
    d.start();
    d.push(line(1));
    await until(() => d.stats.failures >= 1);
    expect(logs[0]).toMatch(/dashboard unreachable/);
    expect(await d.close(50)).toBe(1);
  });

  it("applies backpressure only while the dashboard is reachable", async () => {
    const { state, url } = await fakeDashboard();
    const d = new Delivery({ url, token: "t", lingerMs: 5, maxBufferEvents: 100, log: () => {} });
    d.start();
    for (let i = 0; i < 90; i++) d.push(line(i));
    await d.backpressure();
    expect(d.stats.buffered).toBeLessThanOrEqual(50);
    state.down = true;
    for (let i = 0; i < 100; i++) d.push(line(i));
    await until(() => !d.stats.healthy);
    await d.backpressure();
    await d.close(50);
  });

  it("re-sends a compact request the dashboard does not hold the prefix of (unknown_prefix) with full lists", async () => {
    const db = testDb();
    const server: Server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(ingestBody(db, body, "application/x-ndjson")));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    const logs: string[] = [];
    const d = new Delivery({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ingest`,
      token: "t",
      lingerMs: 5,
      log: (l) => logs.push(l),
    });
    const turn = (n: number, o: Record<string, unknown>) =>
      JSON.stringify(
        minimal.request({
          id: `ev-${n}`,
          request_id: `r${n}`,
          session_id: "s1",
          trajectory_id: "main",
          arrived_at: T0 + n,
          ...o,
        }),
      );
    // r1 was lost on the way (never delivered): r2 names it, r3 names r2.
    d.push(turn(2, { prefix_of: { request_id: "r1", blocks: 2 }, sequence_hashes: ["3"] }), () =>
      turn(2, { sequence_hashes: ["1", "2", "3"] }),
    );
    d.push(turn(3, { prefix_of: { request_id: "r2", blocks: 3 }, sequence_hashes: ["4"] }), () =>
      turn(3, { sequence_hashes: ["1", "2", "3", "4"] }),
    );
    d.start();
    await until(() => d.stats.delivered === 2);
    await d.close(1_000);
    expect(d.stats).toMatchObject({ delivered: 2, rejected: 0, resent: 2, buffered: 0 });
    expect(chainStringsOf(db, "ev-3").seq).toEqual(["1", "2", "3", "4"]);
    expect(logs.filter((l) => /rejected/.test(l))).toEqual([]);
  });
});
