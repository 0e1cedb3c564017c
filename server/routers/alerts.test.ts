import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { alertReceivers, saveEvaluation } from "../../db/store/alerts";
import { sqliteStore } from "../../db/store/store";
import { openStoredSecret } from "../auth/stored-secrets";
import { testCaller, testDb } from "../../test/db";
import { enabledReceivers } from "../alerts/loop";
import { insertEvents } from "../../db/sqlite/ingest";
import { minimal, parsed } from "../../test/events";

const NOW = 1_764_417_600_000;
const operator = { kind: "user" as const, id: 2, name: "ops", role: "operator" as const };
const viewer = { kind: "user" as const, id: 3, name: "v", role: "viewer" as const };

async function caught(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected a TRPCError");
}

describe("alerts router", () => {
  it("shows what fires, the history, the rules in force (defaults, all off) and the receivers with their secret hidden", async () => {
    const db = testDb();
    const ops = testCaller(db, () => NOW, operator);
    const { id } = await ops.alerts.upsertReceiver({
      receiver: { name: "chat", kind: "webhook", url: "https://chat.example/hook", secret: "0123456789abcdef-secret" },
    });
    await saveEvaluation(
      sqliteStore(db),
      [
        {
          rule: "preemptions",
          key: "worker=w1",
          labels: { worker: "w1" },
          state: "firing",
          activeAt: NOW - 60_000,
          firedAt: NOW - 30_000,
          value: 9,
          summary: "w1 preempts 9/min",
          link: "/workers/w1",
          severity: "critical",
          sentAt: NOW - 30_000,
        },
      ],
      [
        {
          ts: NOW - 30_000,
          rule: "preemptions",
          key: "worker=w1",
          kind: "firing",
          labels: { worker: "w1" },
          value: 9,
          summary: "s",
          link: "/workers/w1",
          severity: "critical",
        },
      ],
    );
    const o = await testCaller(db, () => NOW, viewer).alerts.overview({ from: NOW - 3_600_000, to: NOW + 1 });
    expect(o.firing.map((a) => a.summary)).toEqual(["w1 preempts 9/min"]);
    expect(o.history).toHaveLength(1);
    expect(o.rules.version).toBeNull();
    expect(o.rules.rules.every((r) => !r.enabled)).toBe(true);
    expect(await testCaller(db, () => NOW, viewer).alerts.rules()).toEqual(o.rules);
    expect(o.receivers).toEqual([
      {
        id,
        name: "chat",
        kind: "webhook",
        url: "https://chat.example/hook",
        enabled: true,
        secret: "••••",
        delivery: null,
      },
    ]);
    // Stored sealed; the loop opens it.
    const [stored] = await alertReceivers(sqliteStore(db));
    expect(stored!.secret).not.toContain("0123456789abcdef");
    expect(openStoredSecret(stored!.secret!)).toBe("0123456789abcdef-secret");
    expect(await enabledReceivers(sqliteStore(db))).toEqual([
      { id, kind: "webhook", url: "https://chat.example/hook", secret: "0123456789abcdef-secret" },
    ]);
  });

  it("keeps a stored secret sent back as its marker while the host stays, and refuses it for another host", async () => {
    const db = testDb();
    const ops = testCaller(db, () => NOW, operator);
    const { id } = await ops.alerts.upsertReceiver({
      receiver: { name: "chat", kind: "webhook", url: "https://chat.example/hook", secret: "0123456789abcdef-secret" },
    });
    await ops.alerts.upsertReceiver({
      receiver: { id, name: "chat 2", kind: "webhook", url: "https://chat.example/other", secret: "••••" },
    });
    expect((await enabledReceivers(sqliteStore(db)))[0]).toMatchObject({ secret: "0123456789abcdef-secret" });
    const moved = await caught(
      ops.alerts.upsertReceiver({
        receiver: { id, name: "chat", kind: "webhook", url: "https://evil.example/hook", secret: "••••" },
      }),
    );
    expect(moved.code).toBe("BAD_REQUEST");
  });

  it.each([
    [{ name: "am", kind: "alertmanager", url: "http://169.254.169.254/" }, "UNPROCESSABLE_CONTENT"],
    [{ name: "am", kind: "alertmanager", url: "ftp://am.example" }, "BAD_REQUEST"],
    [{ name: "am", kind: "alertmanager", url: "http://am.example", secret: "x".repeat(20) }, "BAD_REQUEST"],
    [{ name: "hook", kind: "webhook", url: "https://h.example" }, "BAD_REQUEST"],
    [{ name: "hook", kind: "webhook", url: "https://h.example", secret: "short" }, "BAD_REQUEST"],
    [{ name: "", kind: "alertmanager", url: "http://am.example" }, "BAD_REQUEST"],
    [{ id: "nope", name: "am", kind: "alertmanager", url: "http://am.example" }, "NOT_FOUND"],
  ])("refuses %j (%s) and stores nothing", async (receiver, code) => {
    const db = testDb();
    const err = await caught(
      testCaller(db, () => NOW, operator).alerts.upsertReceiver({ receiver: receiver as never }),
    );
    expect(err.code).toBe(code);
    expect(await alertReceivers(sqliteStore(db))).toEqual([]);
  });

  it("publishes rules as versions on top of their base, audited, and the loop reads the newest", async () => {
    const db = testDb();
    insertEvents(db, [parsed(minimal["worker.up"]({ id: "up", worker_id: "w1", cluster: "pressure", model: "m1" }))]);
    const ops = testCaller(db, () => NOW, operator);
    const rule = {
      name: "preemptions",
      enabled: true,
      metric: "preemptions_per_minute",
      threshold: 5,
      summary: "{{worker}}",
    };
    const v1 = await ops.alerts.publishRules({
      document: { rules: [rule] },
      baseVersion: null,
      comment: "page on preemptions",
    });
    expect(v1).toMatchObject({ ok: true, version: 1 });
    const v2 = await ops.alerts.publishRules({
      document: { rules: [{ ...rule, scope: { cluster: "pressure", worker: "w1" } }] },
      baseVersion: 1,
    });
    expect(v2.diff.map((d) => d.path)).toContain("rules.0.scope.cluster");
    const stale = await caught(ops.alerts.publishRules({ document: { rules: [] }, baseVersion: 1 }));
    expect(stale.code).toBe("CONFLICT");
    const o = await ops.alerts.overview({ from: 0, to: NOW });
    expect(o.rules.version).toBe(2);
    // The policy editor's tab reads the same rules on their own.
    expect(await ops.alerts.rules()).toEqual(o.rules);
    const audit = await ops.policies.audit({});
    expect(audit.items[0]).toMatchObject({ action: "publish", kind: "alerts", version: 2, actor: "ops" });
    // Back to v1's rules as v3, audited as a rollback; the versions list them newest first.
    expect(await ops.alerts.rollbackRules({ to: 1, baseVersion: 2 })).toMatchObject({ ok: true, version: 3 });
    expect((await ops.alerts.overview({ from: 0, to: NOW })).rules.rules[0]!.scope.cluster).toBeNull();
    expect((await ops.alerts.versions()).map((v) => [v.version, v.comment])).toEqual([
      [3, "rules of v1"],
      [2, ""],
      [1, "page on preemptions"],
    ]);
    expect((await ops.policies.audit({})).items[0]).toMatchObject({ action: "rollback", kind: "alerts", version: 3 });
    expect((await caught(ops.alerts.rollbackRules({ to: 9, baseVersion: 3 }))).code).toBe("NOT_FOUND");
    expect((await caught(ops.alerts.rollbackRules({ to: 1, baseVersion: 2 }))).code).toBe("CONFLICT");
  });

  it.each([
    [{ rules: [{ name: "x", metric: "queue", summary: "s" }] }, "document.rules.0.metric"],
    [
      { rules: [{ name: "x", metric: "kv_utilization", threshold: 0.9, scope: { cluster: "nowhere" }, summary: "s" }] },
      "document.rules.0.scope.cluster",
    ],
    [
      { rules: [{ name: "x", metric: "kv_utilization", threshold: 0.9, scope: { worker: "w404" }, summary: "s" }] },
      "document.rules.0.scope.worker",
    ],
  ])("refuses rules %j at %s and stores nothing", async (document, path) => {
    const db = testDb();
    const err = await caught(testCaller(db, () => NOW, operator).alerts.publishRules({ document, baseVersion: null }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(
      (err.cause as { details?: { errors: { path: string }[] } } | undefined)?.details?.errors?.[0]?.path ??
        err.message,
    ).toContain(path.replace("document.", ""));
    expect((await testCaller(db, () => NOW, operator).alerts.overview({ from: 0, to: NOW })).rules.version).toBeNull();
  });

  it("needs the operate scope to change receivers", async () => {
    const db = testDb();
    const err = await caught(
      testCaller(db, () => NOW, viewer).alerts.upsertReceiver({
        receiver: { name: "am", kind: "alertmanager", url: "http://am.example" },
      }),
    );
    expect(err.code).toBe("FORBIDDEN");
    expect((await caught(testCaller(db, () => NOW, operator).alerts.removeReceiver({ id: "x" }))).code).toBe(
      "NOT_FOUND",
    );
  });
});
