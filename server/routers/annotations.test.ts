import { describe, expect, it } from "vitest";
import { sqliteStore } from "../../db/store/store";
import { publishVersion } from "../control/publish";
import { testCaller, testDb } from "../../test/db";

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
});
