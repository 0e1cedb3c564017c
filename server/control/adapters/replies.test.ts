import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listStatuses } from "../../../db/store/control";
import { sqliteStore } from "../../../db/store/store";
import { testDb } from "../../../test/db";
import { defaultPolicies } from "../../../lib/policies/policies";
import { reconcileOnce } from "../reconciler";
import { publishVersion, upsertTarget } from "../publish";
import { targetConfigs } from "../../../lib/policies/targets";
import { busyThresholdAdapter } from "./busy-threshold";
import { replyErrors, replyMessage } from "./http";
import { defaultAdapters } from "./index";
import { simAdapter } from "./sim";

// What the rollout shows of a target's reply: the protocol's JSON error, else the status and its standard reason.

const SECRET = "root:x:0:0:secret-4711";
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function target(status: number, contentType: string, body: string, headers: Record<string, string> = {}) {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on("end", () => res.writeHead(status, { "content-type": contentType, ...headers }).end(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

const routing = defaultPolicies().routing;

describe("policy target replies", () => {
  it("a 500 with secret text is its status and reason in the rollout, never the text", async () => {
    const t = await target(500, "text/plain", SECRET);
    const db = sqliteStore(testDb());
    await upsertTarget(
      db,
      {
        id: "fe",
        name: "Frontend",
        cluster: "default",
        adapter: "dynamo-busy-threshold",
        config: { url: t.url, model: "m" },
        kinds: ["routing"],
        enabled: true,
      },
      "t",
      0,
    );
    await publishVersion(db, {
      cluster: "default",
      kind: "routing",
      document: routing,
      baseVersion: null,
      author: "a",
      comment: "",
      now: 0,
    });
    await reconcileOnce(db, defaultAdapters(), 1_000);
    const [status] = await listStatuses(db);
    expect(status).toMatchObject({ state: "unreachable", message: "HTTP 500 Internal Server Error" });
    expect(JSON.stringify(status)).not.toContain("secret-4711");
  });

  it.each([
    [
      "a JSON error, capped",
      404,
      "application/json",
      JSON.stringify({ error: "e".repeat(500) }),
      `HTTP 404: ${"e".repeat(200)}`,
    ],
    ["JSON under another content type", 404, "text/html", JSON.stringify({ error: SECRET }), "HTTP 404 Not Found"],
    ["JSON without an error", 400, "application/json", JSON.stringify({ message: SECRET }), "HTTP 400 Bad Request"],
    ["an HTML page", 403, "text/html", `<h1>${SECRET}</h1>`, "HTTP 403 Forbidden"],
  ])("a 4xx with %s is rejected as %j", async (_name, status, type, body, message) => {
    const t = await target(status, type, body);
    expect(await busyThresholdAdapter({ url: t.url, model: "m" }).push("routing", 1, routing)).toEqual({
      status: "rejected",
      message,
    });
  });

  it("keeps a structured JSON rejection's field errors, capped", async () => {
    const body = { error: "invalid", errors: [{ path: "busy", message: "m".repeat(300) }, { path: 3 }] };
    const t = await target(422, "application/json; charset=utf-8", JSON.stringify(body));
    expect(await busyThresholdAdapter({ url: t.url, model: "m" }).push("routing", 1, routing)).toEqual({
      status: "rejected",
      message: "HTTP 422: invalid",
      errors: [{ path: "busy", message: "m".repeat(200) }],
    });
    expect(replyErrors({ errors: [{ path: "p".repeat(300), message: "x" }] })).toEqual([
      { path: "p".repeat(200), message: "x" },
    ]);
    expect(replyMessage({ status: 599, json: null })).toBe("HTTP 599 (unknown status)");
  });

  it("the sim adapter shows a non-JSON failure as status and reason only", async () => {
    const t = await target(502, "text/html", `<pre>${SECRET}</pre>`);
    await expect(simAdapter({ url: t.url, token: "t".repeat(16) }).push("routing", 1, routing)).rejects.toThrow(
      /^HTTP 502 Bad Gateway$/,
    );
  });

  it("a redirect is not followed", async () => {
    const elsewhere = await target(200, "application/json", "{}");
    const t = await target(307, "text/plain", "", { location: `${elsewhere.url}/busy_threshold` });
    await expect(busyThresholdAdapter({ url: t.url, model: "m" }).push("routing", 1, routing)).rejects.toThrow(
      /^redirect not followed \(HTTP 307\)$/,
    );
    expect(elsewhere.hits()).toBe(0);
  });

  it("a metadata address is refused before any connection", async () => {
    await expect(
      busyThresholdAdapter({ url: "http://169.254.169.254", model: "m" }).push("routing", 1, routing),
    ).rejects.toThrow(/^refused by SWITCHYARD_OUTBOUND_DENY$/);
  });

  it.each(["http://x/base?y#z", "http://x/base#z", "http://x?y"])("target url %s is refused", (url) => {
    expect(targetConfigs["dynamo-busy-threshold"].safeParse({ url, model: "m" }).error?.issues[0]?.message).toBe(
      "must not have a query or fragment (? or #)",
    );
  });
});
