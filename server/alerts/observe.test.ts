import { describe, expect, it } from "vitest";
import { validateAlertRules, type AlertRule } from "../../lib/alerts/rules";
import { insertVersion, putStatus, writeTarget } from "../../db/store/control";
import { insertEvents } from "../../db/sqlite/ingest";
import { sqliteStore } from "../../db/store/store";
import { testDb } from "../../test/db";
import { minimal, parsed, stats } from "../../test/events";
import { observe, Reads } from "./observe";

// Each rule's figures as the store holds them: one observation per series, inside the rule's scope, with its link.

const NOW = 1_800_000_000_000;

function ruleOf(r: Record<string, unknown>): AlertRule {
  const v = validateAlertRules({ rules: [{ name: "r", enabled: true, summary: "s", ...r }] });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.document.rules[0]!;
}

describe("observe", () => {
  it("reads KV utilization per worker, scoped by cluster", async () => {
    const db = testDb();
    insertEvents(db, [
      parsed(stats("w1", NOW - 30_000, 10, 5, { kv_active_blocks: 950, kv_total_blocks: 1000 })),
      parsed(stats("w2", NOW - 30_000, 10, 5, { cluster: "b", kv_active_blocks: 100, kv_total_blocks: 1000 })),
    ]);
    const reads = new Reads(sqliteStore(db), NOW);
    const all = await observe(ruleOf({ metric: "kv_utilization", threshold: 0.9 }), reads);
    expect(all.map((o) => [o.key, o.value, o.link]).sort()).toEqual([
      ["worker=b/w2", 0.1, "/workers/b%2Fw2?range=15m"],
      ["worker=w1", 0.95, "/workers/w1?range=15m"],
    ]);
    const b = await observe(ruleOf({ metric: "kv_utilization", threshold: 0.9, scope: { cluster: "b" } }), reads);
    expect(b.map((o) => o.labels)).toEqual([{ cluster: "b", worker: "w2" }]);
  });

  it("reads hit rate per cluster and model", async () => {
    const db = testDb();
    insertEvents(db, [
      parsed(
        minimal.request({
          id: "r1",
          request_id: "r1",
          arrived_at: NOW - 20_000,
          ts: NOW - 19_000,
          input_tokens: 100,
          cached_tokens: 25,
          model: "m1",
        }),
      ),
    ]);
    const obs = await observe(ruleOf({ metric: "hit_rate", threshold: 0.5 }), new Reads(sqliteStore(db), NOW));
    expect(obs.map((o) => [o.labels, o.value])).toEqual([[{ cluster: "default", model: "m1" }, 0.25]]);
  });

  it("finds a target out of sync, and in sync once it applied the latest version", async () => {
    const s = sqliteStore(testDb());
    await writeTarget(
      s,
      "t1",
      { name: "sim", cluster: "default", adapter: "sim", config: "{}", kinds: '["routing"]', enabled: true },
      NOW,
    );
    await insertVersion(s, {
      cluster: "default",
      kind: "routing",
      version: 1,
      document: {},
      author: "a",
      comment: "",
      createdAt: NOW,
      basedOn: null,
    });
    const rule = ruleOf({ metric: "target_not_in_sync" });
    const out = await observe(rule, new Reads(s, NOW));
    expect(out).toEqual([
      {
        key: "target=t1",
        labels: { cluster: "default", target: "sim" },
        value: 1,
        present: true,
        link: "/policies?cluster=default",
      },
    ]);
    await putStatus(s, {
      targetId: "t1",
      kind: "routing",
      desiredVersion: 1,
      appliedVersion: 1,
      appliedAt: NOW,
      state: "in_sync",
      message: null,
      errors: null,
      attempts: 1,
      nextRetryAt: null,
      updatedAt: NOW,
    } as never);
    expect((await observe(rule, new Reads(s, NOW)))[0]!.present).toBe(false);
  });

  it("answers nothing for event metrics with nothing to report", async () => {
    const r = new Reads(sqliteStore(testDb()), NOW);
    for (const metric of ["guard_rollback", "finding", "source_not_ok"])
      expect(await observe(ruleOf({ metric }), r)).toEqual([]);
    expect(await observe(ruleOf({ metric: "attribution_lag_minutes", threshold: 5 }), r)).toEqual([
      { key: "attribution", labels: {}, value: 0, link: "/" },
    ]);
  });
});
