import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { defaultPolicies } from "../../lib/policies/policies";
import { createControlServer } from "./control-api";
import { SimController } from "./controller";
import type { TierConfig } from "./tiers";
import { cachedShare, makeSim, ofKind, T0 } from "./test-support";

const TOKEN = "ctl-test-token";
const servers: { close: () => void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A preamble simulation behind a listening control API; `step` applies pending PUTs and advances. */
async function setup(opts: { maxBodyBytes?: number; tiers?: TierConfig } = {}) {
  const { sim, events } = makeSim({ scenario: "preamble" });
  const controller = new SimController(sim);
  const server = createControlServer({
    target: controller,
    token: TOKEN,
    status: () => ({ sim_time: sim.now }),
    ...opts,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { sim, events, controller, base };
}

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, "content-type": "application/json" };

/** Send a PUT and keep the simulation stepping until the reply arrives (policy changes apply between steps). */
async function put(
  ctx: Awaited<ReturnType<typeof setup>>,
  kind: string,
  body: unknown,
  headers: Record<string, string> = json,
) {
  let settled = false;
  const reply = fetch(`${ctx.base}/control/policies/${kind}`, {
    method: "PUT",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  }).finally(() => {
    settled = true;
  });
  while (!settled) {
    await new Promise((r) => setTimeout(r, 5));
    ctx.controller.advance(ctx.sim.now + 100);
  }
  const res = await reply;
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("control API", () => {
  it("refuses requests without the bearer token", async () => {
    const ctx = await setup();
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: TOKEN }] as Record<
      string,
      string
    >[]) {
      const res = await fetch(`${ctx.base}/control/policies`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
    }
    expect(
      (await put(ctx, "routing", { version: 1, document: {} }, { "content-type": "application/json" })).status,
    ).toBe(401);
    expect(ctx.sim.policies().routing.version).toBe(0);
  });

  it("lists every kind at version 0 with its document and applied_at at start", async () => {
    const ctx = await setup();
    const res = await fetch(`${ctx.base}/control/policies`, { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, { version: number; document: unknown; applied_at: number }>;
    expect(Object.keys(body).sort()).toEqual(["autoscaling", "frontend", "retention", "routing"]);
    expect(body.routing).toEqual({ version: 0, document: defaultPolicies().routing, applied_at: T0 });
    expect(body.retention!.document).toEqual(defaultPolicies().retention);
  });

  it("applies a valid document, acknowledges it and emits policy.ack", async () => {
    const ctx = await setup();
    ctx.controller.advance(T0 + 10_000);
    const reply = await put(ctx, "routing", { version: 3, document: { temperature: 0.5 } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ kind: "routing", version: 3, status: "applied", applied_at: expect.any(Number) });
    expect(reply.body.applied_at).toBeGreaterThanOrEqual(T0 + 10_000);
    const listed = (await (await fetch(`${ctx.base}/control/policies`, { headers: auth })).json()) as Record<
      string,
      { version: number; document: { temperature: number } }
    >;
    expect(listed.routing!.version).toBe(3);
    expect(listed.routing!.document.temperature).toBe(0.5);
    expect(ofKind(ctx.events, "policy.ack")).toMatchObject([
      { target: "sim", policy_kind: "routing", version: 3, status: "applied" },
    ]);
  });

  it("rejects an invalid document with field paths (422) and keeps the previous version", async () => {
    const ctx = await setup();
    const reply = await put(ctx, "autoscaling", { version: 1, document: { decode: { min_replicas: 9 }, typo: 1 } });
    expect(reply.status).toBe(422);
    expect(reply.body.status).toBe("rejected");
    expect((reply.body.errors as { path: string }[]).map((e) => e.path).sort()).toEqual([
      "decode.min_replicas",
      "typo",
    ]);
    expect(ctx.sim.policies().autoscaling.version).toBe(0);
    expect(ofKind(ctx.events, "policy.ack")).toMatchObject([
      { policy_kind: "autoscaling", version: 1, status: "rejected" },
    ]);
  });

  it("refuses a retention document offloading to a tier the cluster lacks, naming the rule's field", async () => {
    const doc = {
      rules: [{ name: "conv", match: { segment: "conversation" }, offload: { to: "disk", ttl_seconds: 600 } }],
    };
    const hostOnly = await setup({ tiers: { host_blocks: 1024, disk_blocks: 0, shared_blocks: 0 } });
    const reply = await put(hostOnly, "retention", { version: 1, document: doc });
    expect(reply.status).toBe(422);
    expect(reply.body.errors).toEqual([
      { path: "rules.0.offload.to", message: "this cluster has no disk tier (it has host)" },
    ]);
    expect(hostOnly.sim.policies().retention.version).toBe(0);
    expect(ofKind(hostOnly.events, "policy.ack")).toMatchObject([
      {
        policy_kind: "retention",
        version: 1,
        status: "rejected",
        message: "rules.0.offload.to: this cluster has no disk tier (it has host)",
      },
    ]);

    const withDisk = await setup({ tiers: { host_blocks: 1024, disk_blocks: 8192, shared_blocks: 0 } });
    expect((await put(withDisk, "retention", { version: 1, document: doc })).body.status).toBe("applied");
  });

  it("answers 404 for unknown kinds and paths, 405, 415, 400 and 422 for malformed requests", async () => {
    const ctx = await setup();
    expect((await put(ctx, "planner", { version: 1, document: {} })).status).toBe(404);
    expect((await fetch(`${ctx.base}/nope`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${ctx.base}/control/policies/routing`, { headers: auth })).status).toBe(405);
    expect((await put(ctx, "routing", "{}", { ...auth, "content-type": "text/plain" })).status).toBe(415);
    expect((await put(ctx, "routing", "{not json")).status).toBe(400);
    const envelope = await put(ctx, "routing", { version: -1, doc: {} });
    expect(envelope.status).toBe(422);
    expect((envelope.body.errors as { path: string }[]).map((e) => e.path)).toEqual(["version", "document", "doc"]);
    expect(ofKind(ctx.events, "policy.ack")).toEqual([]);
    const missing = await put(ctx, "routing", { version: 2 });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ path: "document", message: "is required" }]);
    expect(ofKind(ctx.events, "policy.ack")).toMatchObject([
      { policy_kind: "routing", version: 2, status: "rejected", message: "document: is required" },
    ]);
    expect(ctx.sim.policies().routing.version).toBe(0);
  });

  it("bounds the body size", async () => {
    const ctx = await setup({ maxBodyBytes: 1_000 });
    const big = { version: 1, document: { rules: Array.from({ length: 200 }, (_, i) => ({ name: `rule-${i}` })) } };
    expect((await put(ctx, "retention", big)).status).toBe(413);
    const chunks = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode(" ".repeat(100)));
        c.close();
      },
    });
    const streamed = await fetch(`${ctx.base}/control/policies/retention`, {
      method: "PUT",
      headers: json,
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(ctx.sim.policies().retention.version).toBe(0);
  });

  it("restores cross-session prefix reuse when header stripping is turned on through the API", async () => {
    const ctx = await setup();
    ctx.controller.advance(T0 + 6 * 60_000);
    const before = cachedShare(ctx.events, T0 + 2 * 60_000);
    const reply = await put(ctx, "frontend", { version: 1, document: { strip_anthropic_preamble: true } });
    expect(reply.status).toBe(200);
    const switched = reply.body.applied_at as number;
    ctx.controller.advance(switched + 6 * 60_000);
    const after = cachedShare(ctx.events, switched + 2 * 60_000);
    expect(before).toBeLessThan(0.5);
    expect(after).toBeGreaterThan(0.8);
    const later = ofKind(ctx.events, "request").filter((r) => r.arrived_at > switched);
    expect(later.every((r) => r.policy_versions?.frontend === 1)).toBe(true);
  });
});
