import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { testCaller, testDb } from "../../test/db";
import { defaultPolicies } from "../../lib/policies/policies";
import { insertEvents } from "../../db/sqlite/ingest";
import { minimal, parsed } from "../../test/events";

const NOW = 1_764_417_600_000;
let db = testDb();
const setup = () => testCaller((db = testDb()), () => NOW);
/** A caller signed in as the named operator on the current test's database (the author of what it publishes). */
const as = (name: string) => testCaller(db, () => NOW, { kind: "user", id: 2, name, role: "operator" });

async function caught(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected a TRPCError");
}

describe("policies router", () => {
  it("publishes version 1 then 2, with defaults filled and history newest first", async () => {
    const api = setup();
    expect(await api.policies.latest({ kind: "routing" })).toBeNull();
    const v1 = await as("ada").policies.publish({
      kind: "routing",
      document: {},
      baseVersion: null,
      comment: "initial",
    });
    expect(v1).toMatchObject({ version: 1, basedOn: null });
    const v2 = await as("bob").policies.publish({ kind: "routing", document: { temperature: 0.5 }, baseVersion: 1 });
    expect(v2).toEqual({ version: 2, basedOn: 1, diff: [{ path: "temperature", before: 0, after: 0.5 }] });
    const latest = await api.policies.latest({ kind: "routing" });
    expect(latest).toMatchObject({
      version: 2,
      basedOn: 1,
      createdAt: NOW,
      document: { ...defaultPolicies().routing, temperature: 0.5 },
    });
    const history = await api.policies.history({ kind: "routing", limit: 1 });
    expect(history.items.map((v) => v.version)).toEqual([2]);
    expect(history.nextCursor).toBe(2);
    expect(
      (await api.policies.history({ kind: "routing", before: 2 })).items.map((v) => [v.version, v.comment]),
    ).toEqual([[1, "initial"]]);
    const list = await api.policies.list();
    expect(list.map((k) => [k.kind, k.latest?.version ?? null])).toEqual([
      ["retention", null],
      ["autoscaling", null],
      ["routing", 2],
      ["frontend", null],
    ]);
  });

  it("refuses a publish on a stale base with what changed, and keeps the other operator's version", async () => {
    const api = setup();
    await api.policies.publish({ kind: "frontend", document: {}, baseVersion: null });
    await as("ada").policies.publish({
      kind: "frontend",
      document: { strip_anthropic_preamble: true },
      baseVersion: 1,
    });
    const err = await caught(
      as("bob").policies.publish({ kind: "frontend", document: { tool_output_budget: { limit: 5 } }, baseVersion: 1 }),
    );
    expect(err.code).toBe("CONFLICT");
    expect(err.cause).toMatchObject({
      details: { latest: 2, base: 1, diff: [{ path: "strip_anthropic_preamble", before: false, after: true }] },
    });
    const latest = await api.policies.latest({ kind: "frontend" });
    expect(latest).toMatchObject({
      version: 2,
      document: { strip_anthropic_preamble: true, tool_output_budget: { limit: 10_000 } },
    });
    const again = await as("bob").policies.publish({
      kind: "frontend",
      document: { ...(latest!.document as object), tool_output_budget: { unit: "tokens", limit: 5 } },
      baseVersion: 2,
    });
    expect(again.version).toBe(3);
  });

  it("refuses a first publish when a version already exists", async () => {
    const api = setup();
    await api.policies.publish({ kind: "routing", document: {}, baseVersion: null });
    expect((await caught(api.policies.publish({ kind: "routing", document: {}, baseVersion: null }))).code).toBe(
      "CONFLICT",
    );
  });

  it("rolls back by publishing an earlier version's content as a new version", async () => {
    const api = setup();
    await api.policies.publish({ kind: "routing", document: {}, baseVersion: null });
    await api.policies.publish({ kind: "routing", document: { overlap_credit: 2 }, baseVersion: 1 });
    const res = await as("ada").policies.rollback({
      kind: "routing",
      to: 1,
      baseVersion: 2,
      comment: "too aggressive",
    });
    expect(res).toEqual({ version: 3, basedOn: 2, diff: [{ path: "overlap_credit", before: 2, after: 1 }] });
    expect((await api.policies.latest({ kind: "routing" }))!.document).toEqual(defaultPolicies().routing);
    expect(await api.policies.diff({ kind: "routing", from: 2, to: 3 })).toEqual([
      { path: "overlap_credit", before: 2, after: 1 },
    ]);
    expect((await caught(api.policies.rollback({ kind: "routing", to: 9, baseVersion: 3 }))).code).toBe("NOT_FOUND");
    expect((await caught(api.policies.rollback({ kind: "routing", to: 1, baseVersion: 2 }))).code).toBe("CONFLICT");
    expect((await caught(api.policies.diff({ kind: "routing", from: 1, to: 9 }))).code).toBe("NOT_FOUND");
  });

  it("records every change in the audit log, newest first", async () => {
    const api = setup();
    await as("ada").policies.publish({ kind: "routing", document: {}, baseVersion: null, comment: "c1" });
    await as("bob").policies.rollback({ kind: "routing", to: 1, baseVersion: 1 });
    await as("cy").policies.targets.upsert({
      target: {
        id: "sim",
        name: "Simulator",
        adapter: "sim",
        kinds: ["routing"],
        config: { url: "http://127.0.0.1:1", token: "t" },
      },
    });
    await as("cy").policies.targets.remove({ id: "sim" });
    await caught(api.policies.publish({ kind: "routing", document: {}, baseVersion: 1 }));
    const audit = await api.policies.audit({});
    expect(audit.items.map((a) => [a.actor, a.action, a.kind, a.version])).toEqual([
      ["cy", "target.remove", null, null],
      ["cy", "target.upsert", null, null],
      ["bob", "rollback", "routing", 2],
      ["ada", "publish", "routing", 1],
    ]);
    expect(audit.items[3]!.detail).toMatchObject({ comment: "c1" });
    expect(audit.items.every((a) => a.ts === NOW)).toBe(true);
  });

  it.each([
    ["autoscaling", { decode: { kv_scale_up: 0.4, kv_scale_down: 0.5 } }, "document.decode.kv_scale_down"],
    ["autoscaling", { prefill: { min_replicas: 9, max_replicas: 4 } }, "document.prefill.min_replicas"],
    ["retention", { rules: [{ name: "a", ttl_seconds: -1 }] }, "document.rules.0.ttl_seconds"],
    ["routing", { busy: { typo: 1 } }, "document.busy"],
  ] as const)("refuses an invalid %s document as BAD_REQUEST with field paths", async (kind, document, path) => {
    const api = setup();
    const err = await caught(api.policies.publish({ kind, document: document as never, baseVersion: null }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.cause).toBeInstanceOf(ZodError);
    const issues = (err.cause as ZodError).issues.map((i) => i.path.join("."));
    expect(issues).toContain(path);
    expect(await api.policies.latest({ kind })).toBeNull();
  });

  it("lists, replaces and removes targets with secrets redacted, and refuses kinds an adapter cannot take", async () => {
    const api = setup();
    await api.policies.targets.upsert({
      target: {
        id: "sim",
        name: "Sim",
        adapter: "sim",
        kinds: ["routing", "frontend"],
        config: { url: "http://127.0.0.1:9", token: "secret" },
      },
    });
    await api.policies.targets.upsert({
      target: {
        id: "sim",
        name: "Simulator",
        adapter: "sim",
        kinds: ["routing"],
        config: { url: "http://127.0.0.1:9", token: "secret" },
      },
    });
    expect(await api.policies.targets.list()).toEqual([
      {
        id: "sim",
        name: "Simulator",
        cluster: "default",
        adapter: "sim",
        kinds: ["routing"],
        enabled: true,
        config: { url: "http://127.0.0.1:9", token: "••••" },
      },
    ]);
    const err = await caught(
      api.policies.targets.upsert({
        target: { id: "f", name: "F", adapter: "planner-file", kinds: ["routing"], config: { path: "p.json" } },
      }),
    );
    expect(err.code).toBe("BAD_REQUEST");
    expect((await caught(api.policies.targets.remove({ id: "nope" }))).code).toBe("NOT_FOUND");
    expect(await api.policies.rollout()).toEqual([]);
    await api.policies.publish({ kind: "routing", document: {}, baseVersion: null });
    expect(await api.policies.rollout()).toMatchObject([
      { targetId: "sim", kind: "routing", latestVersion: 1, appliedVersion: null, state: "pending" },
    ]);
  });

  describe("clusters", () => {
    it("publishes to one cluster without touching another's versions, rollout or audit", async () => {
      const api = setup();
      await api.policies.targets.upsert({
        target: {
          id: "staging",
          name: "Staging",
          cluster: "staging",
          adapter: "sim",
          kinds: ["retention"],
          config: { url: "http://127.0.0.1:9", token: "s" },
        },
      });
      await api.policies.targets.upsert({
        target: {
          id: "prod",
          name: "Production",
          adapter: "sim",
          kinds: ["retention"],
          config: { url: "http://127.0.0.1:9", token: "p" },
        },
      });
      const v1 = await as("ada").policies.publish({
        cluster: "staging",
        kind: "retention",
        document: defaultPolicies().retention,
        baseVersion: null,
        comment: "staging first",
      });
      expect(v1).toMatchObject({ version: 1 });
      expect(await api.policies.latest({ kind: "retention" })).toBeNull();
      expect(await api.policies.latest({ cluster: "staging", kind: "retention" })).toMatchObject({
        cluster: "staging",
        version: 1,
      });
      expect(
        (await api.policies.list({ cluster: "staging" })).find((k) => k.kind === "retention")?.latest,
      ).toMatchObject({ version: 1 });
      expect(await api.policies.rollout()).toMatchObject([
        { targetId: "staging", cluster: "staging", latestVersion: 1, state: "pending" },
      ]);
      expect(await api.policies.rollout({ cluster: "default" })).toEqual([]);
      expect((await api.policies.audit({ cluster: "staging" })).items.map((e) => e.action)).toEqual([
        "publish",
        "target.upsert",
      ]);
      expect(await api.policies.clusters()).toEqual(["default", "staging"]);
      // The diff a copy to production reviews: staging's v1 against production's (none yet: 404 names it).
      const missing = await caught(
        api.policies.diff({ cluster: "staging", kind: "retention", from: 1, to: 1, toCluster: "default" }),
      );
      expect(missing.code).toBe("NOT_FOUND");
      expect(missing.message).toBe("retention version 1 of default does not exist");
    });

    it.each([
      ["a space", "prod eu"],
      ["a leading dash", "-prod"],
      ["65 characters", "p".repeat(65)],
      ["an empty name", ""],
      ["an empty model", "prod@"],
      ["a space in the model", "prod@gpt oss"],
      ["a bad cluster before the model", "-prod@gpt"],
    ])("refuses a cluster with %s, storing nothing", async (_why, cluster) => {
      const api = setup();
      const err = await caught(
        api.policies.publish({ cluster, kind: "frontend", document: {}, baseVersion: null, comment: "" }),
      );
      expect(err.code).toBe("BAD_REQUEST");
      expect((err.cause as ZodError).issues[0]).toMatchObject({ path: ["cluster"] });
      expect(await api.policies.audit({})).toMatchObject({ items: [] });
    });
  });

  describe("model scopes", () => {
    /** production serves two models (its workers say so), staging one. */
    const served = () => {
      insertEvents(
        db,
        [
          minimal["worker.up"]({ id: "u1", cluster: "production", worker_id: "w1", model: "qwen" }),
          minimal["worker.up"]({ id: "u2", cluster: "production", worker_id: "w101", model: "gpt-oss" }),
          minimal["worker.up"]({ id: "u3", cluster: "staging", worker_id: "w1", model: "qwen" }),
        ].map(parsed),
      );
    };
    const target = (id: string, cluster: string) => ({
      target: {
        id,
        name: id,
        cluster,
        adapter: "sim" as const,
        kinds: ["retention" as const],
        config: { url: "http://127.0.0.1:9", token: id },
      },
    });

    it("numbers a model's versions on their own and rolls them out to that scope's targets only", async () => {
      const api = setup();
      served();
      await api.policies.targets.upsert(target("prod", "production"));
      await api.policies.targets.upsert(target("prod-gpt", "production@gpt-oss"));
      const retention = defaultPolicies().retention;
      const publish = (cluster: string, baseVersion: number | null) =>
        as("ada").policies.publish({ cluster, kind: "retention", document: retention, baseVersion, comment: cluster });
      expect(await publish("production", null)).toMatchObject({ version: 1 });
      expect(await publish("production", 1)).toMatchObject({ version: 2 });
      // The model's line starts at v1 on no base: the cluster's v2 is not its concern.
      expect(await publish("production@gpt-oss", null)).toMatchObject({ version: 1 });
      expect(await api.policies.latest({ cluster: "production@gpt-oss", kind: "retention" })).toMatchObject({
        cluster: "production@gpt-oss",
        version: 1,
      });
      expect((await api.policies.rollout()).map((e) => [e.targetId, e.cluster, e.latestVersion]).sort()).toEqual([
        ["prod", "production", 2],
        ["prod-gpt", "production@gpt-oss", 1],
      ]);
      expect((await api.policies.rollout({ cluster: "production@gpt-oss" })).map((e) => e.targetId)).toEqual([
        "prod-gpt",
      ]);
      expect((await api.policies.audit({ cluster: "production@gpt-oss" })).items.map((e) => e.action)).toEqual([
        "publish",
        "target.upsert",
      ]);
      // The menu: every cluster, and each model its workers serve.
      expect(await api.policies.clusters()).toEqual([
        "default",
        "production",
        "production@gpt-oss",
        "production@qwen",
        "staging",
        "staging@qwen",
      ]);
    });

    it.each([
      ["a model the cluster does not serve", "production@llama", "it serves gpt-oss, qwen"],
      ["another cluster's model", "staging@gpt-oss", "it serves qwen"],
      ["a cluster no worker of which was seen", "eu@qwen", "no worker of it has named a model yet"],
    ])("refuses a version for %s with the served models, storing nothing", async (_why, cluster, list) => {
      const api = setup();
      served();
      const err = await caught(
        api.policies.publish({ cluster, kind: "frontend", document: {}, baseVersion: null, comment: "" }),
      );
      expect(err.code).toBe("BAD_REQUEST");
      expect(err.message).toContain(`does not serve the model ${cluster.split("@")[1]}: ${list}`);
      expect(await api.policies.latest({ cluster, kind: "frontend" })).toBeNull();
      expect(await api.policies.audit({})).toMatchObject({ items: [] });
    });
  });
});
