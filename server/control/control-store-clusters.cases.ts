import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  latestVersionNumbers,
  listAudit,
  listStatuses,
  listTargets,
  listVersions,
  policyClusters,
} from "../../db/store/control";
import { acksFrom } from "../../db/store/guards";
import { T0 } from "../../test/events";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { AppError } from "../errors";
import { FakeTarget, ingestAcks, publish, simTarget } from "./control-store.cases";
import { upsertTarget } from "./publish";
import { reconcileOnce, type Adapters } from "./reconciler";

// Policies of one cluster (control-store.cases.ts's helpers, the same two connections to one database): numbering,
// conflicts, pushes, target moves and acks stay within a cluster. Run on each engine by control-store(.pg).test.ts.

export function controlStoreClusterCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`control plane store per cluster on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    const staging = { ...simTarget, id: "staging", name: "Staging", cluster: "staging", kinds: ["routing" as const] };
    const prod = { ...simTarget, id: "prod", name: "Production", cluster: "prod", kinds: ["routing" as const] };

    it("numbers each cluster's versions on their own: a base of one cluster never conflicts with another's", async () => {
      const { a, b } = s;
      expect(await publish(a, { temperature: 0.1 }, null, T0, "routing", "prod")).toMatchObject({ version: 1 });
      expect(await publish(a, { temperature: 0.2 }, 1, T0, "routing", "prod")).toMatchObject({ version: 2 });
      expect(await publish(b, { temperature: 0.9 }, null, T0, "routing", "staging")).toMatchObject({
        ok: true,
        version: 1,
      });
      expect(await publish(b, { temperature: 0.8 }, 2, T0, "routing", "staging")).toMatchObject({
        ok: false,
        reason: "conflict",
        latest: 1,
      });
      expect(await latestVersionNumbers(a)).toEqual(
        new Map([
          ["prod", { routing: 2 }],
          ["staging", { routing: 1 }],
        ]),
      );
      const stagingVersions = await listVersions(b, "staging", "routing", 10);
      expect(stagingVersions).toHaveLength(1);
      expect(stagingVersions[0]!.document).toMatchObject({ temperature: 0.9 });
      expect(await listVersions(b, "default", "routing", 10)).toEqual([]);
      const audit = await listAudit(a, 10, undefined, "staging");
      expect(audit.map((r) => [r.action, r.cluster, r.version])).toEqual([["publish", "staging", 1]]);
      expect(await policyClusters(b)).toEqual(["prod", "staging"]);
    });

    it("pushes a cluster's version to that cluster's targets only", async () => {
      const { a, b } = s;
      const fakes = { staging: new FakeTarget(), prod: new FakeTarget() };
      const adapters: Adapters = { sim: (t) => fakes[t.id as "staging" | "prod"] };
      await upsertTarget(a, staging, "op", T0);
      await upsertTarget(a, prod, "op", T0);
      await publish(b, { temperature: 0.3 }, null, T0, "routing", "staging");
      await reconcileOnce(a, adapters, T0 + 10);
      expect(fakes.staging.pushes).toMatchObject([{ kind: "routing", version: 1, document: { temperature: 0.3 } }]);
      expect(fakes.prod.pushes).toEqual([]);
      expect((await listStatuses(b)).map((r) => [r.targetId, r.appliedVersion])).toEqual([["staging", 1]]);
      await publish(b, { temperature: 0.6 }, null, T0, "routing", "prod");
      await reconcileOnce(a, adapters, T0 + 20);
      expect(fakes.prod.pushes).toMatchObject([{ version: 1, document: { temperature: 0.6 } }]);
      expect(fakes.staging.pushes).toHaveLength(1);
    });

    it("refuses to move a target to another cluster while a push to it is in flight, and changes nothing", async () => {
      const { a, b } = s;
      const fake = new FakeTarget();
      await upsertTarget(a, staging, "op", T0);
      await publish(a, { temperature: 0.3 }, null, T0, "routing", "staging");
      await publish(a, { temperature: 0.5 }, null, T0, "routing", "prod");
      fake.mode = "down";
      await reconcileOnce(a, { sim: () => fake }, T0 + 10);
      const before = { statuses: await listStatuses(b), audit: await listAudit(b, 50) };
      const err = await upsertTarget(b, { ...staging, cluster: "prod" }, "op", T0 + 20).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: "CONFLICT" });
      expect((err as Error).message).toContain("routing v1 (unreachable)");
      expect({ statuses: await listStatuses(b), audit: await listAudit(b, 50) }).toEqual(before);
      expect((await listTargets(b))[0]).toMatchObject({ id: "staging", cluster: "staging" });
      // Once the push settles, the move goes through and the target receives its new cluster's version.
      fake.mode = "up";
      await reconcileOnce(a, { sim: () => fake }, T0 + 60_000);
      await upsertTarget(b, { ...staging, cluster: "prod" }, "op", T0 + 70_000);
      expect(await listStatuses(b)).toEqual([]);
      fake.pushes = [];
      await reconcileOnce(a, { sim: () => fake }, T0 + 80_000);
      expect(fake.pushes).toMatchObject([{ version: 1, document: { temperature: 0.5 } }]);
      expect((await listAudit(b, 1))[0]).toMatchObject({ action: "target.upsert", cluster: "prod" });
    });

    it("reads a cluster's acks apart from another's of the same version", async () => {
      const { a, b } = s;
      await ingestAcks(a, [
        { version: 1, ts: T0 + 10, cluster: "staging", target: "staging" },
        { version: 1, ts: T0 + 20, cluster: "prod", target: "prod" },
        { version: 1, ts: T0 + 30 },
        { version: 1, ts: T0 + 40, cluster: "prod", target: "prod-gpt", model: "gpt-oss" },
      ]);
      expect((await acksFrom(b, "staging", "routing", 1)).map((r) => r.target)).toEqual(["staging"]);
      // A model's line is acknowledged apart from its cluster's, though both number a v1.
      expect((await acksFrom(b, "prod", "routing", 1)).map((r) => r.target)).toEqual(["prod"]);
      expect((await acksFrom(b, "prod@gpt-oss", "routing", 1)).map((r) => r.target)).toEqual(["prod-gpt"]);
      expect(await acksFrom(b, "prod@qwen", "routing", 1)).toEqual([]);
      expect((await acksFrom(b, "default", "routing", 1)).map((r) => r.target)).toEqual(["sim"]);
    });
  });
}
