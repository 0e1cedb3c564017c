import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openDb } from "../../db/sqlite/client";
import { listStatuses, listTargets, type TargetRow } from "../../db/store/control";
import { sqliteStore } from "../../db/store/store";
import { publishVersion, upsertTarget } from "./publish";
import { SECRET_MARKER } from "../../lib/policies/targets";
import { openSecret } from "../auth/secret-box";
import { secretKey } from "../auth/stored-secrets";
import { testDb } from "../../test/db";
import type { PolicyKind } from "../../lib/policies/policies";
import {
  nextActions,
  reconcileOnce,
  retryDelay,
  startReconciler,
  type Adapters,
  type PushResult,
  type StatusView,
} from "./reconciler";

const T0 = 1_764_417_600_000;
const BACKOFF = { baseMs: 1_000, capMs: 8_000 };

/** A target that answers from a script: "down" throws, "reject" refuses, otherwise applies. */
class FakeTarget {
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

const target = (id: string, kinds: PolicyKind[], enabled = true): TargetRow => ({
  id,
  name: id,
  cluster: "default",
  adapter: "sim",
  config: { url: "http://x", token: "t" },
  kinds,
  enabled,
});

async function setup() {
  const db = sqliteStore(testDb());
  const fake = new FakeTarget();
  const adapters: Adapters = { sim: () => fake };
  await upsertTarget(db, target("sim", ["routing"]), "test", T0);
  const publish = (document: unknown, baseVersion: number | null) =>
    publishVersion(db, {
      cluster: "default",
      kind: "routing",
      document,
      baseVersion,
      author: "a",
      comment: "",
      now: T0,
    });
  const status = async () => (await listStatuses(db)).find((s) => s.targetId === "sim" && s.kind === "routing");
  return { db, fake, adapters, publish, status, run: (now: number) => reconcileOnce(db, adapters, now, BACKOFF) };
}

describe("retryDelay", () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 8_000],
    [5, 8_000],
    [60, 8_000],
  ])("after %i failures waits %i ms", (attempts, ms) => expect(retryDelay(attempts, BACKOFF)).toBe(ms));
});

describe("nextActions", () => {
  const st = (o: Partial<StatusView>): StatusView => ({
    targetId: "a",
    kind: "routing",
    desiredVersion: 2,
    appliedVersion: 1,
    state: "pending",
    attempts: 0,
    nextRetryAt: null,
    ...o,
  });
  it.each<[string, StatusView[], boolean, unknown[]]>([
    ["no status yet: push", [], true, [{ type: "push", version: 2, attempts: 0 }]],
    ["in sync: nothing", [st({ appliedVersion: 2, state: "in_sync" })], true, []],
    ["rejected this version: nothing", [st({ state: "rejected" })], true, []],
    [
      "rejected an older version: push",
      [st({ desiredVersion: 1, state: "rejected" })],
      true,
      [{ type: "push", version: 2, attempts: 0 }],
    ],
    ["unreachable, retry ahead: wait", [st({ state: "unreachable", attempts: 2, nextRetryAt: T0 + 1 })], true, []],
    [
      "unreachable, retry due: push",
      [st({ state: "unreachable", attempts: 2, nextRetryAt: T0 })],
      true,
      [{ type: "push", attempts: 2 }],
    ],
    ["disabled and behind: stale", [], false, [{ type: "stale", version: 2 }]],
    ["disabled and already stale: nothing", [st({ state: "stale" })], false, []],
  ])("%s", (_name, statuses, enabled, expected) => {
    const actions = nextActions(
      T0,
      [target("a", ["routing", "frontend"], enabled)],
      statuses,
      new Map([["default", { routing: 2 }]]),
    );
    expect(actions).toMatchObject(expected);
    expect(actions).toHaveLength(expected.length);
  });
});

describe("reconcileOnce", () => {
  it("pushes the latest version and records in_sync, then does nothing until a new version", async () => {
    const ctx = await setup();
    await ctx.run(T0);
    expect(ctx.fake.pushes).toEqual([]);
    await ctx.publish({ temperature: 1 }, null);
    await ctx.run(T0 + 10);
    expect(ctx.fake.pushes).toMatchObject([
      { kind: "routing", version: 1, document: { temperature: 1, overlap_credit: 1 } },
    ]);
    expect(await ctx.status()).toMatchObject({
      state: "in_sync",
      desiredVersion: 1,
      appliedVersion: 1,
      appliedAt: T0 + 10,
      attempts: 0,
      nextRetryAt: null,
    });
    await ctx.run(T0 + 20);
    expect(ctx.fake.pushes).toHaveLength(1);
    await ctx.publish({ temperature: 2 }, 1);
    await ctx.run(T0 + 30);
    expect(ctx.fake.pushes.map((p) => p.version)).toEqual([1, 2]);
    expect(await ctx.status()).toMatchObject({ state: "in_sync", appliedVersion: 2 });
  });

  it("backs off exponentially while unreachable, survives a restart and recovers", async () => {
    const ctx = await setup();
    await ctx.publish({}, null);
    ctx.fake.mode = "down";
    await ctx.run(T0);
    expect(await ctx.status()).toMatchObject({
      state: "unreachable",
      attempts: 1,
      nextRetryAt: T0 + 1_000,
      appliedVersion: null,
      message: "connect ECONNREFUSED",
    });
    await ctx.run(T0 + 999);
    expect(ctx.fake.pushes).toHaveLength(1);
    await ctx.run(T0 + 1_000);
    expect(await ctx.status()).toMatchObject({ state: "unreachable", attempts: 2, nextRetryAt: T0 + 1_000 + 2_000 });
    let t = T0 + 3_000;
    for (let i = 0; i < 4; i++) {
      await ctx.run(t);
      t = (await ctx.status())!.nextRetryAt!;
    }
    expect(await ctx.status()).toMatchObject({ attempts: 6 });
    const st = (await ctx.status())!;
    expect(st.nextRetryAt! - st.updatedAt).toBe(8_000);
    const restarted = new FakeTarget();
    const due = (await ctx.status())!.nextRetryAt!;
    await reconcileOnce(ctx.db, { sim: () => restarted }, due - 1, BACKOFF);
    expect(restarted.pushes).toHaveLength(0);
    await reconcileOnce(ctx.db, { sim: () => restarted }, due, BACKOFF);
    expect(restarted.pushes).toHaveLength(1);
    expect(await ctx.status()).toMatchObject({
      state: "in_sync",
      appliedVersion: 1,
      attempts: 0,
      nextRetryAt: null,
      message: null,
    });
  });

  it("records a rejection with the target's message, keeps the applied version and does not retry it", async () => {
    const ctx = await setup();
    await ctx.publish({}, null);
    await ctx.run(T0);
    await ctx.publish({ temperature: 3 }, 1);
    ctx.fake.mode = "reject";
    await ctx.run(T0 + 1);
    expect(await ctx.status()).toMatchObject({
      state: "rejected",
      desiredVersion: 2,
      appliedVersion: 1,
      appliedAt: T0,
      message: "refused — temperature: too hot",
    });
    expect(JSON.parse((await ctx.status())!.errors!)).toEqual([{ path: "temperature", message: "too hot" }]);
    await ctx.run(T0 + 60_000);
    expect(ctx.fake.pushes).toHaveLength(2);
    ctx.fake.mode = "up";
    await ctx.publish({ temperature: 0.1 }, 2);
    await ctx.run(T0 + 60_001);
    expect(await ctx.status()).toMatchObject({ state: "in_sync", appliedVersion: 3 });
  });

  it("pushes only the kinds a target takes, skips disabled targets as stale, and reports a missing adapter", async () => {
    const ctx = await setup();
    await upsertTarget(ctx.db, target("off", ["routing"], false), "test", T0);
    await upsertTarget(ctx.db, { ...target("file", ["autoscaling"]), adapter: "planner-file" }, "test", T0);
    await ctx.publish({}, null);
    await publishVersion(ctx.db, {
      cluster: "default",
      kind: "frontend",
      document: {},
      baseVersion: null,
      author: "a",
      comment: "",
      now: T0,
    });
    await publishVersion(ctx.db, {
      cluster: "default",
      kind: "autoscaling",
      document: {},
      baseVersion: null,
      author: "a",
      comment: "",
      now: T0,
    });
    await ctx.run(T0);
    expect(ctx.fake.pushes.map((p) => p.kind)).toEqual(["routing"]);
    const rows = Object.fromEntries(
      (await listStatuses(ctx.db)).map((s) => [`${s.targetId}/${s.kind}`, [s.state, s.message]]),
    );
    expect(rows).toEqual({
      "sim/routing": ["in_sync", null],
      "off/routing": ["stale", "target disabled"],
      "file/autoscaling": ["unreachable", "no adapter for planner-file"],
    });
  });

  it("keeps reconciling on a timer until stopped", async () => {
    const ctx = await setup();
    await ctx.publish({}, null);
    const stop = startReconciler(ctx.db, ctx.adapters, 5, () => T0);
    await expect.poll(async () => (await ctx.status())?.state, { timeout: 2_000 }).toBe("in_sync");
    await ctx.publish({ temperature: 1 }, 1);
    await expect.poll(async () => (await ctx.status())?.appliedVersion, { timeout: 2_000 }).toBe(2);
    await stop();
    await ctx.publish({ temperature: 2 }, 2);
    await new Promise((r) => setTimeout(r, 50));
    expect((await ctx.status())?.appliedVersion).toBe(2);
  });

  it("records its outcomes while another connection holds the write lock past the busy timeout", async () => {
    // The dashboard's shared connection waits 250 ms inside SQLite; an ingest or attribution batch can hold the lock
    // longer. The lock here is released by a timer, which fires only if the pass waits on the event loop.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reconcile-lock-"));
    const [a, b] = [openDb(path.join(dir, "s.db"), 250), openDb(path.join(dir, "s.db"))];
    try {
      const db = sqliteStore(a);
      const fake = new FakeTarget();
      await upsertTarget(db, target("sim", ["routing"]), "test", T0);
      await publishVersion(db, {
        cluster: "default",
        kind: "routing",
        document: {},
        baseVersion: null,
        author: "a",
        comment: "",
        now: T0,
      });
      b.$client.exec("BEGIN IMMEDIATE");
      setTimeout(() => b.$client.exec("COMMIT"), 400);
      await reconcileOnce(db, { sim: () => fake }, T0, BACKOFF);
      expect(fake.pushes).toHaveLength(1);
      expect((await listStatuses(db)).map((s) => [s.targetId, s.state, s.appliedVersion])).toEqual([
        ["sim", "in_sync", 1],
      ]);
    } finally {
      if (b.$client.inTransaction) b.$client.exec("ROLLBACK");
      a.$client.close();
      b.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("upsertTarget", () => {
  it("keeps the stored token when the redaction marker comes back, and re-pushes after a config change", async () => {
    const ctx = await setup();
    await ctx.publish({}, null);
    await ctx.run(T0);
    expect(await ctx.status()).toMatchObject({ state: "in_sync" });
    await upsertTarget(
      ctx.db,
      { ...target("sim", ["routing"]), name: "renamed", config: { url: "http://x", token: SECRET_MARKER } },
      "op",
      T0 + 1,
    );
    const [kept] = await listTargets(ctx.db);
    expect(kept).toMatchObject({ name: "renamed", config: { url: "http://x" } });
    expect(openSecret(kept!.config.token as string, secretKey())).toBe("t");
    expect(await ctx.status()).toMatchObject({ state: "in_sync" });
    await upsertTarget(
      ctx.db,
      { ...target("sim", ["routing"]), config: { url: "http://y", token: "t2" } },
      "op",
      T0 + 2,
    );
    expect(await ctx.status()).toBeUndefined();
    await ctx.run(T0 + 3);
    expect(ctx.fake.pushes).toHaveLength(2);
    expect(await ctx.status()).toMatchObject({ state: "in_sync", appliedVersion: 1 });
  });
});
