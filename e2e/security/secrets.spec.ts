import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { adminApi, adminMutation } from "../fixtures/auth";
import { rememberSecret } from "../fixtures/secrets";
import { uniq } from "../fixtures/telemetry";

// Issue 32's stored-token probe replayed over HTTP: a target edited with the token sent back as the marker and a URL
// on another host must be refused naming config.token, so the stored token never reaches the new URL.

type Seen = { auth: string | undefined; path: string | undefined }[];

async function listener(seen: Seen): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    seen.push({ auth: req.headers.authorization, path: req.url });
    req.resume();
    res.writeHead(503, { "content-type": "text/plain" }).end("not now");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test("a stored target token is never sent to a URL on another host or port", async ({ baseURL }) => {
  const token = `${uniq("target-token")}-0123456789`;
  rememberSecret(token);
  const second: Seen = [];
  const a = await listener([]);
  const b = await listener(second);
  const api = await adminApi(baseURL!);
  const id = uniq("sec-target")
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .slice(0, 60);
  const target = { id, name: "secret probe", adapter: "sim", kinds: ["retention"], enabled: true };
  try {
    await adminMutation(api, "policies.targets.upsert", { target: { ...target, config: { url: a.url, token } } });
    // The marker with a new port: the probe's request, refused before anything is stored.
    const res = await api.post("/api/trpc/policies.targets.upsert", {
      data: { json: { target: { ...target, config: { url: b.url, token: "••••" } } } },
    });
    expect(res.status()).toBe(400);
    const text = await res.text();
    expect(text).toContain("config.token");
    expect(text).not.toContain(token);
    const listed = await api.get(`/api/trpc/policies.targets.list?input=${encodeURIComponent('{"json":null}')}`);
    const body = await listed.text();
    expect(body).not.toContain(token);
    expect(body).not.toContain("enc:v1:");
    expect(body).toContain(a.url);
    // Nothing was stored for the new URL, so no push can reach it (the unit tests follow the reconciler's pushes).
    expect(second).toEqual([]);
  } finally {
    await api.post("/api/trpc/policies.targets.remove", { data: { json: { id } } });
    await api.dispose();
    a.server.close();
    b.server.close();
  }
});
