import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { adminApi, adminMutation } from "../fixtures/auth";
import { uniq } from "../fixtures/telemetry";

// Issue 32's outbound probe replayed over HTTP: a source pointed at a page that is not metrics must show viewers a
// fixed reason and never the page; a redirect is not followed; a metadata address is refused when saved.

const SECRET = "loopback-admin-secret-4711";
let server: http.Server;
let base: string;
let redirectTargetHits = 0;

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/redirect") return res.writeHead(302, { location: `${base}/target` }).end();
    if (req.url === "/target") {
      redirectTargetHits++;
      return res.writeHead(200, { "content-type": "text/plain" }).end("up 1\n");
    }
    res.writeHead(200, { "content-type": "text/html" }).end(`<html><body><p>${SECRET}</p></body></html>\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const sourceId = (prefix: string) =>
  uniq(prefix)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 40);

type ApiSource = { id: string; last_error: string | null };

/** A request context with a new read-scope token and no session: what a viewer's script sees. */
async function readApi(admin: APIRequestContext, baseURL: string): Promise<APIRequestContext> {
  const { token } = await adminMutation<{ token: string }>(admin, "tokens.create", {
    name: uniq("outbound-read"),
    scope: "read",
  });
  return playwrightRequest.newContext({
    baseURL,
    extraHTTPHeaders: { Authorization: `Bearer ${token}` },
    storageState: { cookies: [], origins: [] },
  });
}

/** GET /api/sources as the reader until the source has an error; returns that source and the whole body's text. */
async function errorOf(reader: APIRequestContext, id: string) {
  let body = "";
  await expect
    .poll(
      async () => {
        const res = await reader.get("/api/sources");
        body = await res.text();
        if (res.status() !== 200) return null;
        const found = (JSON.parse(body) as { sources: ApiSource[] }).sources.find((s) => s.id === id);
        return found?.last_error ?? null;
      },
      { timeout: 30_000, intervals: [250, 500, 1_000] },
    )
    .not.toBeNull();
  return { source: (JSON.parse(body) as { sources: ApiSource[] }).sources.find((s) => s.id === id)!, body };
}

test("a source at a secret page shows a read token 'not Prometheus text: line 1', never the page", async ({
  baseURL,
}) => {
  const api = await adminApi(baseURL!);
  const reader = await readApi(api, baseURL!);
  const id = sourceId("probe");
  await adminMutation(api, "sources.upsert", {
    source: {
      id,
      name: "Probe",
      kind: "prometheus",
      config: { url: `${base}/metrics`, kind: "auto", interval_seconds: 1 },
    },
    create: true,
  });
  try {
    const { source, body } = await errorOf(reader, id);
    expect(source.last_error).toBe("not Prometheus text: line 1");
    expect(body).not.toContain(SECRET);
    const list = await reader.get("/api/trpc/sources.list");
    expect(list.status()).toBe(200);
    const text = await list.text();
    expect(text).toContain("not Prometheus text: line 1");
    expect(text).not.toContain(SECRET);
  } finally {
    await adminMutation(api, "sources.remove", { id });
    await Promise.all([api.dispose(), reader.dispose()]);
  }
});

test("a redirect is not followed: the source says so and its target is never requested", async ({ baseURL }) => {
  const api = await adminApi(baseURL!);
  const reader = await readApi(api, baseURL!);
  const id = sourceId("redirect");
  await adminMutation(api, "sources.upsert", {
    source: {
      id,
      name: "Redirect",
      kind: "prometheus",
      config: { url: `${base}/redirect`, kind: "auto", interval_seconds: 1 },
    },
    create: true,
  });
  try {
    const { source } = await errorOf(reader, id);
    expect(source.last_error).toBe("redirect not followed (HTTP 302)");
    expect(redirectTargetHits).toBe(0);
  } finally {
    await adminMutation(api, "sources.remove", { id });
    await Promise.all([api.dispose(), reader.dispose()]);
  }
});

test("a source or policy target at the metadata address is refused with 422 naming SWITCHYARD_OUTBOUND_DENY", async ({
  baseURL,
}) => {
  const api = await adminApi(baseURL!);
  try {
    const id = sourceId("meta");
    const source = await api.post("/api/trpc/sources.upsert", {
      data: {
        json: {
          source: {
            id,
            name: "Meta",
            kind: "prometheus",
            config: { url: "http://169.254.169.254/metrics", kind: "auto" },
          },
          create: true,
        },
      },
    });
    expect(source.status()).toBe(422);
    expect(await source.text()).toContain("config.url: 169.254.169.254 is refused by SWITCHYARD_OUTBOUND_DENY");
    const list = await api.get(`/api/sources`);
    expect(((await list.json()) as { sources: ApiSource[] }).sources.map((s) => s.id)).not.toContain(id);

    const target = await api.post("/api/trpc/policies.targets.upsert", {
      data: {
        json: {
          target: {
            id: sourceId("meta-target"),
            name: "Meta",
            adapter: "dynamo-busy-threshold",
            config: { url: "http://169.254.169.254", model: "m" },
            kinds: ["routing"],
          },
        },
      },
    });
    expect(target.status()).toBe(422);
    expect(await target.text()).toContain("SWITCHYARD_OUTBOUND_DENY");

    const query = await api.post("/api/trpc/sources.upsert", {
      data: {
        json: {
          source: { id, name: "Query", kind: "prometheus", config: { url: "http://x/metrics?y#z", kind: "auto" } },
          create: true,
        },
      },
    });
    expect(query.status()).toBe(400);
    expect(await query.text()).toContain("must not have a query or fragment");
  } finally {
    await api.dispose();
  }
});
