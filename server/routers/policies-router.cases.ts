import fs from "node:fs";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDb, TEST_ADMIN } from "../../test/db";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { useTempFolders } from "../files/test-support";
import { createCaller } from "../trpc/root";

// The policies router over the store, written once and run on each engine (policies-store.test.ts: SQLite;
// policies.pg.test.ts: PostgreSQL), with two callers on two connections: two dashboard processes behind one balancer.

const NOW = 1_764_417_600_000;
// Set before the settings are first read: planner-file targets are names inside folders.targets.
const folders = useTempFolders();

async function caught(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected a TRPCError");
}

export function policiesRouterCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`policies router on ${e.engine}`, () => {
    let s: TwoStores;
    let one: ReturnType<typeof createCaller>;
    let two: ReturnType<typeof createCaller>;
    beforeEach(async () => {
      s = await e.open();
      const caller = (store: TwoStores["a"]) => createCaller({ store, now: () => NOW, actor: TEST_ADMIN });
      [one, two] = [caller(s.a), caller(s.b)];
    });
    afterEach(() => s.close());

    it("publishes on one process, reads history, diff and audit on the other, rolls back from either", async () => {
      expect(await one.policies.publish({ kind: "routing", document: {}, baseVersion: null })).toMatchObject({
        version: 1,
      });
      await two.policies.publish({
        kind: "routing",
        document: { temperature: 0.5 },
        baseVersion: 1,
        guard: { hitRateDropPoints: 5 },
      });
      const history = await one.policies.history({ kind: "routing", limit: 1 });
      expect(history.items.map((v) => [v.version, v.guard?.state ?? null])).toEqual([[2, "waiting"]]);
      expect(history.nextCursor).toBe(2);
      expect(await one.policies.diff({ kind: "routing", from: 1, to: 2 })).toEqual([
        { path: "temperature", before: 0, after: 0.5 },
      ]);
      expect(await one.policies.rollback({ kind: "routing", to: 1, baseVersion: 2 })).toMatchObject({
        version: 3,
        basedOn: 2,
      });
      expect((await two.policies.latest({ kind: "routing" }))?.document).toMatchObject({ temperature: 0 });
      const audit = await two.policies.audit({ limit: 10 });
      expect(audit.items.map((a) => a.action)).toEqual(["rollback", "guard.add", "publish", "publish"]);
      expect((await one.policies.list()).find((k) => k.kind === "routing")?.latest?.version).toBe(3);
    });

    it.each<[string, (api: ReturnType<typeof createCaller>) => Promise<unknown>, string]>([
      ["a stale base", (api) => api.policies.publish({ kind: "routing", document: {}, baseVersion: null }), "CONFLICT"],
      [
        "an invalid document",
        (api) =>
          api.policies.publish({ kind: "routing", document: { temperature: -1, nope: 1 } as never, baseVersion: 1 }),
        "BAD_REQUEST",
      ],
      [
        "a rollback to nothing",
        (api) => api.policies.rollback({ kind: "routing", to: 5, baseVersion: 1 }),
        "NOT_FOUND",
      ],
      ["a diff with nothing", (api) => api.policies.diff({ kind: "routing", from: 1, to: 4 }), "NOT_FOUND"],
      ["removing no target", (api) => api.policies.targets.remove({ id: "nope" }), "NOT_FOUND"],
    ])("refuses %s with its code and changes nothing", async (_name, call, code) => {
      await one.policies.publish({ kind: "routing", document: {}, baseVersion: null });
      const before = [await two.policies.history({ kind: "routing" }), await two.policies.audit({})];
      expect((await caught(call(two))).code).toBe(code);
      expect([await one.policies.history({ kind: "routing" }), await one.policies.audit({})]).toEqual(before);
    });

    it("targets: upsert on one process, listed with the token hidden and their rollout on the other, removed", async () => {
      await one.policies.targets.upsert({
        target: {
          id: "sim",
          name: "Sim",
          adapter: "sim",
          config: { url: "http://x", token: "secret" },
          kinds: ["routing"],
        },
      });
      await one.policies.publish({ kind: "routing", document: {}, baseVersion: null });
      expect(await two.policies.targets.list()).toEqual([
        expect.objectContaining({ id: "sim", config: { url: "http://x", token: "••••" }, enabled: true }),
      ]);
      expect(await two.policies.rollout()).toEqual([
        expect.objectContaining({ targetId: "sim", kind: "routing", latestVersion: 1, state: "pending" }),
      ]);
      expect(await two.policies.targets.remove({ id: "sim" })).toEqual({ id: "sim" });
      expect(await one.policies.targets.list()).toEqual([]);
      expect(await one.policies.rollout()).toEqual([]);
    });

    it.each([
      ["the probe's <any>/../victim", () => `${folders.targets}/../victim`, /\(no absolute path\)$/],
      ["a/../../victim", () => "a/../../victim", /\(no "\.\." component\)$/],
      [
        "a symlink planted inside",
        () => (fs.symlinkSync(folders.root, path.join(folders.targets, "up")), "up/victim"),
        /\(no symbolic link at any part of the path\)$/,
      ],
    ])(
      "targets: a planner-file path of %s is a 422 naming the rule, nothing stored or written",
      async (_, at, rule) => {
        fs.mkdirSync(folders.targets, { recursive: true });
        const err = await caught(
          one.policies.targets.upsert({
            target: { id: "x", name: "x", adapter: "planner-file", config: { path: at() }, kinds: ["autoscaling"] },
          }),
        );
        expect([getHTTPStatusCodeFromError(err), err.code]).toEqual([422, "UNPROCESSABLE_CONTENT"]);
        expect(err.message).toMatch(/^config\.path: must be a relative file name inside SWITCHYARD_TARGET_DIR \(no/);
        expect(err.message).toMatch(rule);
        expect(await two.policies.targets.list()).toEqual([]);
        expect(await two.policies.audit({})).toMatchObject({ items: [] });
        expect(fs.existsSync(path.join(folders.root, "victim"))).toBe(false);
        fs.rmSync(path.join(folders.targets, "up"), { force: true });
      },
    );

    it("targets: a planner-file name inside SWITCHYARD_TARGET_DIR is stored as typed", async () => {
      await one.policies.targets.upsert({
        target: {
          id: "plan",
          name: "P",
          adapter: "planner-file",
          config: { path: "team/planner.json" },
          kinds: ["autoscaling"],
        },
      });
      expect(await two.policies.targets.list()).toEqual([
        expect.objectContaining({ id: "plan", config: { path: "team/planner.json" } }),
      ]);
    });
  });
}
