import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createOutboundFetch, resolveChecked, type Resolve } from "./fetch";
import { outboundPolicy, type OutboundPolicy } from "./policy";

// Real connections go to loopback servers only; denied addresses come from injected name lookups and are never dialled.

type Seen = { url: string; host: string }[];
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function serve(handler: http.RequestListener): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", host: req.headers.host ?? "" });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { port: (server.address() as AddressInfo).port, seen };
}

function outbound(policy: OutboundPolicy = outboundPolicy(undefined, undefined), resolve?: Resolve) {
  const o = createOutboundFetch(policy, resolve);
  cleanup.push(() => o.close());
  return o.fetch;
}

const get = { timeoutMs: 2_000, maxBytes: 1_024 };
const closing: http.RequestListener = (_req, res) => res.writeHead(200, { connection: "close" }).end("ok");

describe("the guarded fetch", () => {
  it("does not follow a redirect and never requests its target", async () => {
    const target = await serve((_req, res) => res.end("secret"));
    const redirecting = await serve((_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/secret` }).end(),
    );
    await expect(outbound()(`http://127.0.0.1:${redirecting.port}/metrics`, get)).rejects.toThrow(
      /^redirect not followed \(HTTP 302\)$/,
    );
    expect(redirecting.seen).toHaveLength(1);
    expect(target.seen).toEqual([]);
  });

  it("connects to the address it checked, and refuses a later denied answer (DNS rebinding)", async () => {
    const { port, seen } = await serve(closing);
    const answers = [[{ address: "127.0.0.1", family: 4 }], [{ address: "169.254.169.254", family: 4 }]];
    let lookups = 0;
    const fetch = outbound(undefined, async () => answers[Math.min(lookups++, 1)]!);
    const reply = await fetch(`http://rebind.test:${port}/metrics`, get);
    expect(reply).toMatchObject({ status: 200, text: "ok" });
    expect(lookups).toBe(1);
    expect(seen).toEqual([{ url: "/metrics", host: `rebind.test:${port}` }]);
    await expect(fetch(`http://rebind.test:${port}/metrics`, get)).rejects.toThrow(
      /^refused by SWITCHYARD_OUTBOUND_DENY$/,
    );
    expect(lookups).toBe(2);
    expect(seen).toHaveLength(1);
  });

  it("refuses an answer mixing an allowed and a denied address", async () => {
    const { port, seen } = await serve(closing);
    const fetch = outbound(undefined, async () => [
      { address: "127.0.0.1", family: 4 },
      { address: "::ffff:169.254.169.254", family: 6 },
    ]);
    await expect(fetch(`http://mixed.test:${port}/`, get)).rejects.toThrow("refused by SWITCHYARD_OUTBOUND_DENY");
    expect(seen).toEqual([]);
  });

  it.each([
    ["a denied literal", "http://169.254.169.254/latest/meta-data/", undefined, undefined, "DENY"],
    ["a denied name", "http://metadata.google.internal/", undefined, undefined, "DENY"],
    ["loopback when DENY names it", "http://127.0.0.1:1/", "127.0.0.0/8", undefined, "DENY"],
    ["an address outside ALLOW", "http://127.0.0.1:1/", undefined, "10.0.0.0/8", "ALLOW"],
  ])("refuses %s before connecting", async (_name, url, deny, allow, setting) => {
    let lookups = 0;
    const fetch = outbound(outboundPolicy(deny, allow), async () => {
      lookups++;
      return [{ address: "127.0.0.1", family: 4 }];
    });
    await expect(fetch(url, get)).rejects.toThrow(
      setting === "DENY" ? "refused by SWITCHYARD_OUTBOUND_DENY" : "not allowed by SWITCHYARD_OUTBOUND_ALLOW",
    );
    expect(lookups).toBe(0);
  });

  it("hands any other HTTP answer to the caller, capped in size", async () => {
    const { port } = await serve((req, res) =>
      res.writeHead(req.url === "/big" ? 200 : 404, { "content-type": "text/html" }).end("x".repeat(2_000)),
    );
    const fetch = outbound();
    expect(await fetch(`http://127.0.0.1:${port}/missing`, { ...get, maxBytes: 4_000 })).toMatchObject({
      status: 404,
      contentType: "text/html",
    });
    await expect(fetch(`http://127.0.0.1:${port}/big`, get)).rejects.toThrow(/^response exceeds 1024 bytes$/);
  });

  it("names a refused connection and a timeout with fixed reasons", async () => {
    const { port } = await serve(() => {});
    const fetch = outbound();
    await expect(fetch(`http://127.0.0.1:${port}/`, { ...get, timeoutMs: 150 })).rejects.toThrow(
      /^timed out after 150 ms$/,
    );
    const closed = await serve(closing);
    await cleanup.pop()!();
    await expect(fetch(`http://127.0.0.1:${closed.port}/`, get)).rejects.toThrow(/^connection refused$/);
    // A port fetch never connects to (its blocked list) says so instead of a bare "cannot connect".
    await expect(fetch("http://127.0.0.1:1/", get)).rejects.toThrow(/^port not allowed for HTTP/);
  });
});

describe("resolveChecked", () => {
  it("returns the checked answers, IPv4-mapped ones as IPv4", async () => {
    const policy = outboundPolicy(undefined, undefined);
    expect(await resolveChecked(policy, "a.test", async () => [{ address: "::ffff:10.0.0.1", family: 6 }])).toEqual([
      { address: "10.0.0.1", family: 4 },
    ]);
    expect(await resolveChecked(policy, "[::1]")).toEqual([{ address: "::1", family: 6 }]);
    await expect(resolveChecked(policy, "a.test", async () => [{ address: "fe80::1", family: 6 }])).rejects.toThrow(
      "refused by SWITCHYARD_OUTBOUND_DENY",
    );
  });
});
