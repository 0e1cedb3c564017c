import { describe, expect, it } from "vitest";
import { sqliteStore } from "../../db/store/store";
import { publishVersion } from "../control/publish";
import { testCaller, testDb } from "../../test/db";
import { saveEvaluation } from "../../db/store/alerts";

const NOW = 1_764_417_600_000;

describe("annotations.policies", () => {
  it("lists versions published in the range with a label, oldest first, and none outside it", async () => {
    const db = testDb();
    const publish = (kind: "retention" | "routing", baseVersion: number | null, now: number, document: unknown = {}) =>
      publishVersion(sqliteStore(db), {
        cluster: "default",
        kind,
        document,
        baseVersion,
        author: "ana",
        comment: "why",
        now,
      });
    await publish("retention", null, NOW - 3 * 3_600_000);
    await publish("retention", 1, NOW - 30 * 60_000);
    await publish("routing", null, NOW - 10 * 60_000, { temperature: 0.5 });
    const caller = testCaller(db, () => NOW);
    const marks = await caller.annotations.policies({ range: { preset: "1h" } });
    expect(marks.map((m) => [m.label, m.ts, m.author])).toEqual([
      ["retention v2 published", NOW - 30 * 60_000, "ana"],
      ["routing v1 published", NOW - 10 * 60_000, "ana"],
    ]);
    expect(
      await caller.annotations.policies({ range: { from: NOW - 4 * 3_600_000, to: NOW - 2 * 3_600_000 } }),
    ).toHaveLength(1);
  });

  it("marks alerts that fired and resolved, linking to the Alerts page; alert-rule versions are not marks", async () => {
    const db = testDb();
    const s = sqliteStore(db);
    const ev = (kind: "firing" | "resolved", ts: number, labels: Record<string, string>) => ({
      ts,
      rule: "preemptions",
      key: "k",
      kind,
      labels,
      value: 9,
      summary: "s",
      link: "/workers/w1",
      severity: "critical" as const,
    });
    await saveEvaluation(
      s,
      [],
      [
        ev("firing", NOW - 20 * 60_000, { cluster: "default", worker: "w1" }),
        ev("resolved", NOW - 5 * 60_000, { cluster: "pressure", worker: "w2" }),
      ],
    );
    await testCaller(db, () => NOW, { kind: "user", id: 2, name: "ops", role: "operator" }).alerts.publishRules({
      document: { rules: [] },
      baseVersion: null,
    });
    const marks = await testCaller(db, () => NOW).annotations.policies({ range: { preset: "1h" } });
    expect(marks.map((m) => [m.kind, m.label, m.href])).toEqual([
      ["alert", "alert preemptions firing (w1)", "/alerts?rule=preemptions"],
      ["alert", "alert preemptions resolved (pressure/w2)", "/alerts?rule=preemptions"],
    ]);
  });
});
