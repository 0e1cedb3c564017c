import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import type { PgDb } from "../../db/pg/client";
import { insertEventsPg } from "../../db/pg/ingest";
import { insertEvents } from "../../db/sqlite/ingest";
import { latestVersionNumbers, listAudit, listStatuses, listVersions, publishedBetween } from "../../db/store/control";
import { acksFrom, guardByKey, guardRollbacksBetween } from "../../db/store/guards";
import type { Store } from "../../db/store/store";
import { minimal, parsed, T0 } from "../../test/events";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { publishGuarded, tripGuard } from "./guard-records";
import type { PolicyKind } from "../../lib/policies/policies";
import { startLeader } from "../jobs/leader";
import { reconcileOnce, startReconciler, type Adapters, type PushResult } from "./reconciler";
import { publishVersion, removeTarget, rollbackVersion, upsertTarget } from "./publish";

// The control plane's store, written once and run on each engine (control-store.test.ts: SQLite;
// control-store.pg.test.ts: PostgreSQL), each time with two connections to one database: two dashboard processes.

export const publish = (
  s: Store,
  document: unknown,
  baseVersion: number | null,
  now = T0,
  kind: PolicyKind = "routing",
  cluster = "default",
) => publishVersion(s, { cluster, kind, document, baseVersion, author: "ana", comment: `on ${baseVersion}`, now });

/** Everything the control plane stored, to show a refused write changed nothing. */
async function snapshot(s: Store) {
  return {
    versions: await listVersions(s, "default", "routing", 500),
    audit: await listAudit(s, 500),
    statuses: await listStatuses(s),
  };
}

/** Store policy.ack events through the engine's own ingest (what a target's stream does). */
export async function ingestAcks(
  s: Store,
  acks: { version: number; ts: number; status?: string; target?: string; cluster?: string; model?: string }[],
) {
  const rows = acks.map((a) =>
    parsed(
      minimal["policy.ack"]({
        id: `ack-${a.target ?? "sim"}-${a.version}-${a.ts}`,
        ts: a.ts,
        target: a.target ?? "sim",
        ...(a.cluster ? { cluster: a.cluster } : {}),
        ...(a.model ? { model: a.model } : {}),
        policy_kind: "routing",
        version: a.version,
        status: a.status ?? "applied",
        ...(a.status === "rejected" ? { message: "refused: unknown field" } : {}),
      }),
    ),
  );
  if (s.engine === "pg") await insertEventsPg(s.db as unknown as PgDb, rows);
  else insertEvents(s.db as unknown as Db, rows);
}

export class FakeTarget {
  mode: "up" | "down" | "reject" = "up";
  pushes: { kind: PolicyKind; version: number; document: unknown }[] = [];
  async push(kind: PolicyKind, version: number, document: unknown): Promise<PushResult> {
    this.pushes.push({ kind, version, document });
    if (this.mode === "down") throw new Error("connect ECONNREFUSED");
    if (this.mode === "reject")
      return { status: "rejected", message: "refused", errors: [{ path: "temperature", message: "too hot" }] };
    return { status: "applied" };
  }
}

export const simTarget = {
  id: "sim",
  name: "Sim",
  cluster: "default",
  adapter: "sim",
  config: { url: "http://x", token: "t" },
  enabled: true,
};

export function controlStoreCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`control plane store on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("publishes versions 1, 2 on their bases; another process reads them, their audit and their chart marks", async () => {
      const { a, b } = s;
      expect(await publish(a, { temperature: 0.5 }, null)).toMatchObject({ ok: true, version: 1, basedOn: null });
      expect(await publish(a, { temperature: 0.7 }, 1, T0 + 1_000)).toMatchObject({ ok: true, version: 2, basedOn: 1 });
      const versions = await listVersions(b, "default", "routing", 10);
      expect(versions.map((v) => [v.version, v.basedOn, v.author, v.createdAt])).toEqual([
        [2, 1, "ana", T0 + 1_000],
        [1, null, "ana", T0],
      ]);
      expect(versions[0]!.document).toMatchObject({ temperature: 0.7, overlap_credit: 1 });
      expect(await latestVersionNumbers(b)).toEqual(new Map([["default", { routing: 2 }]]));
      expect((await listAudit(b, 10)).map((r) => [r.action, r.version, r.ts])).toEqual([
        ["publish", 2, T0 + 1_000],
        ["publish", 1, T0],
      ]);
      expect((await listVersions(b, "default", "routing", 10, 2)).map((v) => v.version)).toEqual([1]);
      expect((await publishedBetween(b, T0 + 1, T0 + 2_000)).map((m) => [m.kind, m.version, m.ts])).toEqual([
        ["routing", 2, T0 + 1_000],
      ]);
    });

    it("rolls back by publishing an earlier version's content as a new version, audited with from and to", async () => {
      const { a, b } = s;
      await publish(a, { temperature: 0.5 }, null);
      await publish(a, { temperature: 0.9 }, 1);
      const r = await rollbackVersion(b, {
        cluster: "default",
        kind: "routing",
        to: 1,
        baseVersion: 2,
        author: "bo",
        comment: "",
        now: T0,
      });
      expect(r).toMatchObject({ ok: true, version: 3, basedOn: 2 });
      const [v3] = await listVersions(a, "default", "routing", 1);
      expect(v3).toMatchObject({ version: 3, author: "bo", document: { temperature: 0.5 } });
      expect((await listAudit(a, 1))[0]).toMatchObject({ action: "rollback", version: 3, detail: { from: 2, to: 1 } });
    });

    it("of two processes publishing on the same base at once, exactly one stores the next version", async () => {
      const { a, b } = s;
      await publish(a, {}, null);
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => publish(i % 2 ? b : a, { temperature: i / 10 }, 1, T0 + i)),
      );
      const won = outcomes.filter((o) => o.ok);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ version: 2 });
      expect(outcomes.filter((o) => !o.ok)).toEqual(
        Array(7).fill(expect.objectContaining({ ok: false, reason: "conflict", latest: 2, base: 1 })),
      );
      expect((await listVersions(b, "default", "routing", 10)).map((v) => v.version)).toEqual([2, 1]);
      expect((await listAudit(b, 10)).filter((r) => r.action === "publish")).toHaveLength(2);
    });

    it("two processes publishing in a loop (retrying each conflict) get one version number each, none twice", async () => {
      const { a, b } = s;
      const loop = async (st: Store, tag: string, n: number) => {
        const mine: number[] = [];
        while (mine.length < n) {
          const base = (await latestVersionNumbers(st)).get("default")?.routing ?? null;
          const d = await publish(st, { temperature: mine.length / 10 }, base);
          if (d.ok) mine.push(d.version);
          else expect(d, tag).toMatchObject({ reason: "conflict" });
        }
        return mine;
      };
      const [fromA, fromB] = await Promise.all([loop(a, "a", 6), loop(b, "b", 6)]);
      const all = [...fromA, ...fromB].sort((x, y) => x - y);
      expect(all).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const stored = await listVersions(a, "default", "routing", 100);
      expect(stored.map((v) => v.version)).toEqual([...all].reverse());
      expect(stored.every((v) => v.basedOn === (v.version === 1 ? null : v.version - 1))).toBe(true);
      expect((await listAudit(a, 100)).map((r) => r.version).sort((x, y) => x! - y!)).toEqual(all);
    });

    it("the reconciler on one process pushes a version another process published, and records what it applied", async () => {
      const { a, b } = s;
      const fake = new FakeTarget();
      const adapters: Adapters = { sim: () => fake };
      await upsertTarget(b, { ...simTarget, kinds: ["routing"] }, "op", T0);
      await publish(b, { temperature: 0.2 }, null);
      await reconcileOnce(a, adapters, T0 + 10);
      expect(fake.pushes).toMatchObject([{ kind: "routing", version: 1, document: { temperature: 0.2 } }]);
      expect(await listStatuses(b)).toMatchObject([
        {
          targetId: "sim",
          kind: "routing",
          state: "in_sync",
          desiredVersion: 1,
          appliedVersion: 1,
          appliedAt: T0 + 10,
        },
      ]);
      await publish(b, { temperature: 9 }, 1);
      fake.mode = "reject";
      await reconcileOnce(a, adapters, T0 + 20);
      const [rejected] = await listStatuses(b);
      expect(rejected).toMatchObject({ state: "rejected", desiredVersion: 2, appliedVersion: 1, appliedAt: T0 + 10 });
      expect(JSON.parse(rejected!.errors!)).toEqual([{ path: "temperature", message: "too hot" }]);
      fake.mode = "down";
      await publish(b, { temperature: 0.3 }, 2);
      await reconcileOnce(a, adapters, T0 + 30);
      expect((await listStatuses(b))[0]).toMatchObject({ state: "unreachable", attempts: 1, appliedVersion: 1 });
    });

    it("only the leader pushes, whichever process published; after it stops, the other leads and pushes", async () => {
      const fakes = { a: new FakeTarget(), b: new FakeTarget() };
      const timing = { ttlMs: 1_500, renewMs: 200, marginMs: 300 };
      const leaders = (["a", "b"] as const).map((p) =>
        startLeader(s[p], () => startReconciler(s[p], { sim: () => fakes[p] }, 20), { holder: p, timing }),
      );
      try {
        await upsertTarget(s.a, { ...simTarget, kinds: ["routing"] }, "op", T0);
        await expect.poll(() => leaders.filter((l) => l.leading()).length, { timeout: 5_000 }).toBe(1);
        const lead = leaders[0]!.leading() ? 0 : 1;
        const [leader, follower] = lead === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
        await publish(s[follower], { temperature: 0.1 }, null);
        await expect.poll(() => fakes[leader].pushes.map((p) => p.version), { timeout: 5_000 }).toEqual([1]);
        await publish(s[leader], { temperature: 0.2 }, 1);
        await expect.poll(() => fakes[leader].pushes.map((p) => p.version), { timeout: 5_000 }).toEqual([1, 2]);
        await leaders[lead]!.stop();
        await publish(s[leader], { temperature: 0.3 }, 2);
        await expect.poll(() => fakes[follower].pushes.map((p) => p.version), { timeout: 10_000 }).toEqual([3]);
        expect(fakes[leader].pushes.map((p) => p.version)).toEqual([1, 2]);
        await expect
          .poll(async () => (await listStatuses(s[leader]))[0], { timeout: 5_000 })
          .toMatchObject({ state: "in_sync", appliedVersion: 3 });
      } finally {
        await Promise.all(leaders.map((l) => l.stop()));
      }
    });

    it("records the targets' policy.ack events and reads them back by kind and version, oldest first", async () => {
      const { a, b } = s;
      await ingestAcks(a, [
        { version: 2, ts: T0 + 30 },
        { version: 1, ts: T0 + 10 },
        { version: 2, ts: T0 + 20, status: "rejected", target: "other" },
        { version: 1, ts: T0 + 10 },
      ]);
      expect(await acksFrom(b, "default", "routing", 2)).toEqual([
        { target: "other", version: 2, status: "rejected", ts: T0 + 20, message: "refused: unknown field" },
        { target: "sim", version: 2, status: "applied", ts: T0 + 30, message: null },
      ]);
      expect((await acksFrom(b, "default", "routing", 1)).map((r) => r.version)).toEqual([1, 2, 2]);
      expect(await acksFrom(b, "default", "frontend", 1)).toEqual([]);
    });

    it("a guard is stored with its version; a trip publishes the base's content and marks the charts", async () => {
      const { a, b } = s;
      await publish(a, { temperature: 0.1 }, null);
      const guard = { ttftP95RisePct: 20, hitRateDropPoints: null, windowMinutes: 10 };
      const req = {
        kind: "routing" as const,
        document: { temperature: 0.8 },
        baseVersion: 1,
        author: "ana",
        comment: "",
      };
      expect(await publishGuarded(a, { cluster: "default", ...req, now: T0 + 100 }, guard)).toMatchObject({
        ok: true,
        version: 2,
      });
      const row = (await guardByKey(b, { cluster: "default", kind: "routing", version: 2 }))!;
      expect(row).toMatchObject({ state: "waiting", ttftP95RisePct: 20, createdAt: T0 + 100 });
      const decision = { message: "TTFT p95 +50%", reason: "TTFT p95 +50%", deltas: null, measuredMs: 600_000 };
      expect(await tripGuard(b, row, decision, T0 + 200, T0 + 900)).toBe(3);
      expect(await tripGuard(a, row, decision, T0 + 200, T0 + 901)).toBeNull();
      const [v3] = await listVersions(a, "default", "routing", 1);
      expect(v3).toMatchObject({ version: 3, author: "guard", document: { temperature: 0.1 } });
      expect(await guardByKey(a, row)).toMatchObject({ state: "tripped", rollbackVersion: 3, appliedAt: T0 + 200 });
      expect(await guardRollbacksBetween(a, T0, T0 + 1_000)).toEqual([
        { cluster: "default", kind: "routing", version: 2, rollbackVersion: 3, reason: "TTFT p95 +50%" },
      ]);
      expect((await listAudit(a, 10)).map((r) => r.action)).toEqual([
        "guard.tripped",
        "rollback",
        "guard.add",
        "publish",
        "publish",
      ]);
    });

    it.each<[string, (st: Store) => Promise<unknown>, unknown]>([
      [
        "an invalid document: field errors",
        (st) => publish(st, { temperature: -1, nope: 1 }, 1),
        { ok: false, reason: "invalid", errors: expect.arrayContaining([expect.objectContaining({ path: "nope" })]) },
      ],
      [
        "a stale base: a conflict",
        (st) => publish(st, {}, null),
        { ok: false, reason: "conflict", latest: 1, base: null },
      ],
      [
        "a base that never existed: a conflict",
        (st) => publish(st, {}, 7),
        { ok: false, reason: "conflict", latest: 1 },
      ],
      [
        "a rollback to a version that does not exist: null",
        (st) =>
          rollbackVersion(st, {
            cluster: "default",
            kind: "routing",
            to: 9,
            baseVersion: 1,
            author: "x",
            comment: "",
            now: T0,
          }),
        null,
      ],
      [
        "a rollback on a stale base: a conflict",
        (st) =>
          rollbackVersion(st, {
            cluster: "default",
            kind: "routing",
            to: 1,
            baseVersion: 5,
            author: "x",
            comment: "",
            now: T0,
          }),
        { ok: false, reason: "conflict", latest: 1, base: 5 },
      ],
      ["removing a target that does not exist: false", (st) => removeTarget(st, "nope", "x", T0), false],
    ])("refuses %s and stores nothing", async (_name, write, expected) => {
      const { a, b } = s;
      await publish(a, { temperature: 0.5 }, null);
      const before = await snapshot(b);
      const got = await write(a);
      if (expected !== null && typeof expected === "object") expect(got).toMatchObject(expected);
      else expect(got).toBe(expected);
      expect(await snapshot(b)).toEqual(before);
    });

    it("a transaction that throws stores none of its writes; nested writes join it", async () => {
      const { a, b } = s;
      await publish(a, {}, null);
      const before = await snapshot(b);
      await expect(
        a.tx(async (tx) => {
          expect(await publish(tx, { temperature: 0.4 }, 1)).toMatchObject({ ok: true, version: 2 });
          await upsertTarget(tx, { ...simTarget, kinds: ["routing"] }, "op", T0);
          throw new Error("push failed");
        }),
      ).rejects.toThrow("push failed");
      expect(await snapshot(b)).toEqual(before);
      expect(await publish(a, { temperature: 0.4 }, 1)).toMatchObject({ ok: true, version: 2 });
    });
  });
}
