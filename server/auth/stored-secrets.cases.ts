import { TRPCError } from "@trpc/server";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { listStatuses, storedTarget, writeTarget } from "../../db/store/control";
import { getSource, upsertSource } from "../../db/store/sources";
import type { Store } from "../../db/store/store";
import { SECRET_MARKER } from "../../lib/secret-fields";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { defaultAdapters } from "../control/adapters";
import { reconcileOnce } from "../control/reconciler";
import type { OutboundFetch } from "../outbound/fetch";
import { parseSourceConfig } from "../../lib/sources/config";
import { sourcesApiBody } from "../sources/api-view";
import { emptyState } from "../sources/prometheus/map";
import { scrapeOnce } from "../sources/prometheus/scraper";
import type { PrometheusSourceConfig } from "../../lib/sources/prometheus-config";
import { sourceReporter } from "../sources/status";
import { joinSources } from "../sources/summary";
import { listSources, listSourceStatus } from "../../db/store/sources";
import { createCaller } from "../trpc/root";
import type { Actor, Role } from "./roles";
import { isSealed, openSecret, sealSecret } from "./secret-box";
import { sealStoredSecrets, secretKey } from "./stored-secrets";

// Stored secrets on each engine (stored-secrets.test.ts: SQLite; stored-secrets.pg.test.ts: PostgreSQL), with two
// connections to one database: the probe's replay (a kept token sent to a new host), sealing at rest, the start-up pass
// that seals older rows, and what each role can read back.

const NOW = 1_764_417_600_000;
const TOKEN = "ctl-token-0123456789";
const BEARER = "scrape-bearer-0123456789";

type Seen = { url: string; authorization: string | undefined };

/** A control API that records every request and applies every version. */
async function controlApi(seen: Seen[], host = "127.0.0.1"): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function caught(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected a TRPCError");
}

const actor = (role: Role): Actor => ({ kind: "user", id: 1, name: `a-${role}`, role });
const caller = (store: Store, role: Role = "admin") => createCaller({ store, now: () => NOW, actor: actor(role) });

const simTarget = (url: string, token: string) => ({
  id: "sim",
  name: "Sim",
  cluster: "default",
  adapter: "sim" as const,
  config: { url, token },
  kinds: ["routing" as const],
});

export function storedSecretsCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`stored secrets on ${e.engine}`, () => {
    let s: TwoStores;
    const closers: (() => Promise<void>)[] = [];
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(async () => {
      await Promise.all(closers.splice(0).map((c) => c()));
      await s.close();
    });

    it("the probe's replay: a kept token is refused for another host, port or scheme; a new path keeps it", async () => {
      const [onA, onB] = [[] as Seen[], [] as Seen[]];
      const a = await controlApi(onA);
      const b = await controlApi(onB);
      closers.push(a.close, b.close);
      const [one, two] = [caller(s.a), caller(s.b)];
      const urlA = `http://127.0.0.1:${a.port}/ctl`;
      await one.policies.targets.upsert({ target: simTarget(urlA, TOKEN) });
      await one.policies.publish({ kind: "routing", document: {}, baseVersion: null });
      await reconcileOnce(s.a, defaultAdapters(), NOW);
      expect(onA).toEqual([{ url: "/ctl/control/policies/routing", authorization: `Bearer ${TOKEN}` }]);

      const raw = async () => [await storedTarget(s.b, "sim"), await listStatuses(s.b), await two.policies.audit({})];
      const before = await raw();
      for (const [url, why] of [
        [`http://localhost:${b.port}/ctl`, "the URL's host changed"],
        [`http://127.0.0.1:${b.port}/ctl`, "the URL's port changed"],
        [`https://127.0.0.1:${a.port}/ctl`, "the URL's scheme changed"],
      ] as const) {
        const err = await caught(two.policies.targets.upsert({ target: simTarget(url, SECRET_MARKER) }));
        expect([err.code, err.message]).toEqual(["BAD_REQUEST", `config.token: enter the token again: ${why}`]);
        expect(await raw()).toEqual(before);
      }
      await one.policies.publish({ kind: "routing", document: { temperature: 0.5 }, baseVersion: 1 });
      await reconcileOnce(s.b, defaultAdapters(), NOW + 1_000);
      expect(onB).toEqual([]);
      expect(onA.map((r) => r.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);

      // The same scheme, host and port on another path keeps the stored token (its seal unchanged).
      const sealed = JSON.parse((await storedTarget(s.a, "sim"))!.config).token as string;
      await two.policies.targets.upsert({ target: simTarget(`http://127.0.0.1:${a.port}/v2`, SECRET_MARKER) });
      expect(JSON.parse((await storedTarget(s.a, "sim"))!.config)).toEqual({
        url: `http://127.0.0.1:${a.port}/v2`,
        token: sealed,
      });
      await reconcileOnce(s.a, defaultAdapters(), NOW + 2_000);
      expect(onA.at(-1)).toEqual({ url: "/v2/control/policies/routing", authorization: `Bearer ${TOKEN}` });

      // A token entered again goes to the new host.
      await two.policies.targets.upsert({ target: simTarget(`http://127.0.0.1:${b.port}/ctl`, "token-for-b") });
      await reconcileOnce(s.a, defaultAdapters(), NOW + 3_000);
      expect(onB.map((r) => r.authorization)).toEqual(["Bearer token-for-b"]);
    });

    it("the marker for a new target is refused and stores nothing", async () => {
      const err = await caught(caller(s.a).policies.targets.upsert({ target: simTarget("http://x", SECRET_MARKER) }));
      expect([err.code, err.message]).toEqual(["BAD_REQUEST", "config.token: enter the token: none is stored"]);
      expect(await storedTarget(s.b, "sim")).toBeUndefined();
    });

    it("the row holds enc:v1: and not the token; no role reads the token or its seal back", async () => {
      await caller(s.a).policies.targets.upsert({ target: simTarget("http://x:1/ctl", TOKEN) });
      await caller(s.a).policies.publish({ kind: "routing", document: {}, baseVersion: null });
      const row = (await storedTarget(s.b, "sim"))!;
      expect(row.config).not.toContain(TOKEN);
      const token = JSON.parse(row.config).token as string;
      expect(isSealed(token)).toBe(true);
      expect(openSecret(token, secretKey())).toBe(TOKEN);
      for (const role of ["viewer", "operator", "admin"] as const) {
        const api = caller(s.b, role);
        const seen = JSON.stringify([
          await api.policies.targets.list(),
          await api.policies.rollout(),
          await api.policies.audit({}),
        ]);
        expect(seen, role).toContain(SECRET_MARKER);
        expect(seen, role).not.toContain(TOKEN);
        expect(seen, role).not.toContain("enc:v1:");
        expect(seen, role).toContain("target.upsert");
      }
    });

    it("a scrape's bearer token: sealed, redacted in every view, kept only for the same origin, sent on the scrape", async () => {
      const [one, two] = [caller(s.a), caller(s.b)];
      const source = (url: string, bearer_token?: string) => ({
        source: { id: "vllm-a", name: "vLLM A", kind: "prometheus" as const, config: { url, bearer_token } },
      });
      await one.sources.upsert(source("http://vllm-a:8000/metrics", BEARER));
      const stored = async () => (await getSource(s.b, "vllm-a"))!.config;
      const sealed = (await stored()).bearer_token as string;
      expect(isSealed(sealed)).toBe(true);
      expect(JSON.stringify(await stored())).not.toContain(BEARER);
      for (const role of ["viewer", "operator", "admin"] as const) {
        const list = await caller(s.b, role).sources.list();
        expect(list[0]?.config.bearer_token, role).toBe(SECRET_MARKER);
        expect(JSON.stringify(list), role).not.toMatch(new RegExp(`${BEARER}|enc:v1:`));
      }
      const api = sourcesApiBody(joinSources(await listSources(s.b), await listSourceStatus(s.b)), NOW);
      expect(JSON.stringify(api)).not.toMatch(new RegExp(`${BEARER}|enc:v1:`));

      const before = await stored();
      const err = await caught(two.sources.upsert(source("http://other:8000/metrics", SECRET_MARKER)));
      expect([err.code, err.message]).toEqual([
        "BAD_REQUEST",
        "config.bearer_token: enter the token again: the URL's host changed",
      ]);
      expect(await stored()).toEqual(before);
      await two.sources.upsert(source("http://vllm-a:8000/v2/metrics", SECRET_MARKER));
      expect(await stored()).toEqual({ ...before, url: "http://vllm-a:8000/v2/metrics" });

      // The scrape sends it, opened from the stored config, as Authorization: Bearer.
      const headers: Record<string, string>[] = [];
      const fetch: OutboundFetch = async (_url, init) => {
        headers.push(init.headers ?? {});
        return { status: 503, contentType: "text/plain", text: "" };
      };
      const parsed = parseSourceConfig("prometheus", await stored());
      expect(parsed.ok).toBe(true);
      const config = (parsed as { config: PrometheusSourceConfig }).config;
      const report = sourceReporter(s.a, "vllm-a", "prometheus", "vLLM A", { configured: true });
      await scrapeOnce({ store: s.a, submit: async () => ({}) as never }, "vllm-a", config, report, emptyState(), {
        fetch,
      });
      expect(headers.map((h) => h.authorization)).toEqual([`Bearer ${BEARER}`]);
      const status = JSON.stringify(await caller(s.b, "viewer").sources.list());
      expect(status).toContain("HTTP 503");
      expect(status).not.toContain(BEARER);

      // Left empty, the token is removed.
      await two.sources.upsert(source("http://vllm-a:8000/v2/metrics"));
      expect((await stored()).bearer_token).toBeUndefined();
    });

    it("the start-up pass seals plain rows once, leaves sealed ones as they are, and runs again changing nothing", async () => {
      const key = secretKey();
      const values = (config: unknown) => ({
        name: "T",
        cluster: "default",
        adapter: "sim",
        config: JSON.stringify(config),
        kinds: '["routing"]',
        enabled: true,
      });
      const alreadySealed = sealSecret("kept-token", key);
      await writeTarget(s.a, "plain", values({ url: "http://x/ctl", token: TOKEN }), NOW);
      await writeTarget(s.a, "sealed", values({ url: "http://y/ctl", token: alreadySealed }), NOW);
      await writeTarget(s.a, "file", { ...values({ path: "p.json" }), adapter: "planner-file" }, NOW);
      const src = { kind: "prometheus", name: "P", enabled: true };
      await upsertSource(
        s.a,
        { ...src, id: "plain-src", config: { url: "http://p/metrics", bearer_token: BEARER } },
        NOW,
      );
      await upsertSource(s.a, { ...src, id: "no-token", config: { url: "http://q/metrics" } }, NOW);

      expect(await sealStoredSecrets(s.b, key)).toEqual({ targets: 1, sources: 1 });
      const plain = JSON.parse((await storedTarget(s.a, "plain"))!.config) as { url: string; token: string };
      expect(plain.url).toBe("http://x/ctl");
      expect(isSealed(plain.token) && openSecret(plain.token, key)).toBe(TOKEN);
      expect(JSON.parse((await storedTarget(s.a, "sealed"))!.config).token).toBe(alreadySealed);
      expect((await storedTarget(s.a, "file"))!.config).toBe(JSON.stringify({ path: "p.json" }));
      const srcToken = (await getSource(s.a, "plain-src"))!.config.bearer_token as string;
      expect(openSecret(srcToken, key)).toBe(BEARER);
      expect((await getSource(s.a, "no-token"))!.config).toEqual({ url: "http://q/metrics" });

      const snapshot = async () => [
        await storedTarget(s.a, "plain"),
        await storedTarget(s.a, "sealed"),
        await getSource(s.a, "plain-src"),
      ];
      const after = await snapshot();
      expect(await sealStoredSecrets(s.a, key)).toEqual({ targets: 0, sources: 0 });
      expect(await snapshot()).toEqual(after);
    });
  });
}
