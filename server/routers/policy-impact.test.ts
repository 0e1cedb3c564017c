import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { insertEvents } from "../../db/sqlite/ingest";
import { windowRows } from "../../db/store/impact";
import { sqliteStore } from "../../db/store/store";
import { testCaller, testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import { evaluateGuards } from "../control/guard-loop";

const MIN = 60_000;
/** When the target applied the guarded version. */
const APPLIED = T0 + 30 * MIN;

let seq = 0;
/** n requests spread over [from, from + spanMs) with the given TTFT (ms) and share of cached prompt tokens. */
function requests(from: number, spanMs: number, n: number, ttft: number, hit: number): Raw[] {
  return Array.from({ length: n }, (_, k) => {
    const at = from + Math.floor((k * spanMs) / n);
    seq++;
    return minimal.request({
      id: `req-${seq}`,
      request_id: `r${seq}`,
      ts: at,
      arrived_at: at,
      first_token_at: at + ttft,
      input_tokens: 1000,
      cached_tokens: Math.round(1000 * hit),
    });
  });
}
const ack = (version: number, ts: number, status = "applied", target = "sim"): Raw =>
  minimal["policy.ack"]({
    id: `ack-${target}-${version}-${ts}`,
    ts,
    target,
    policy_kind: "frontend",
    version,
    status,
    ...(status === "rejected" ? { message: "refused: unknown field" } : {}),
  });
const store = (db: Db, raws: Raw[]) => insertEvents(db, raws.map(parsed));
const evaluate = (db: Db, now: number) =>
  evaluateGuards(sqliteStore(db), (span) => windowRows(sqliteStore(db), span), now);

async function caught(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected a TRPCError");
}

/** v1 strips the preamble; v2 (the bad one, guarded) keeps it. */
async function publishGuarded(db: Db, guard: Record<string, unknown>) {
  const api = testCaller(db, () => T0);
  await api.policies.publish({ kind: "frontend", document: { strip_anthropic_preamble: true }, baseVersion: null });
  const v2 = await testCaller(db, () => T0 + MIN).policies.publish({
    kind: "frontend",
    document: { strip_anthropic_preamble: false },
    baseVersion: 1,
    comment: "keep the preamble",
    guard,
  });
  expect(v2.version).toBe(2);
}

describe("guarded rollout", () => {
  it("trips when the hit rate falls more than allowed: publishes v1's content as v3, audits why and marks the charts", async () => {
    const db = testDb();
    await publishGuarded(db, { hitRateDropPoints: 5, windowMinutes: 10 });
    expect(await evaluate(db, T0 + 2 * MIN)).toEqual([
      { kind: "frontend", version: 2, state: "waiting", rollbackVersion: null },
    ]);

    store(db, [
      ...requests(APPLIED - 10 * MIN, 10 * MIN, 100, 100, 0.8),
      ack(2, APPLIED),
      ...requests(APPLIED, 4 * MIN, 40, 110, 0.5),
    ]);
    expect(await evaluate(db, APPLIED + 4 * MIN)).toEqual([
      { kind: "frontend", version: 2, state: "tripped", rollbackVersion: 3 },
    ]);
    expect(await evaluate(db, APPLIED + 5 * MIN)).toEqual([]);

    const api = testCaller(db, () => APPLIED + 5 * MIN);
    const latest = await api.policies.latest({ kind: "frontend" });
    expect(latest).toMatchObject({ version: 3, basedOn: 2, author: "guard" });
    expect((latest!.document as { strip_anthropic_preamble: boolean }).strip_anthropic_preamble).toBe(true);
    expect(latest!.comment).toMatch(/^rolled back by guard: hit rate −30\.0 points/);

    const history = await api.policies.history({ kind: "frontend" });
    expect(history.items.find((v) => v.version === 2)!.guard).toMatchObject({
      state: "tripped",
      reason: "hit rate −30.0 points",
      rollbackVersion: 3,
      appliedAt: APPLIED,
      hitRateDropPoints: 5,
      ttftP95RisePct: null,
    });
    expect(history.items.find((v) => v.version === 3)!.guard).toBeNull();

    const audit = (await api.policies.audit({})).items.map((e) => [e.action, e.actor, e.version]);
    expect(audit.slice(0, 2)).toEqual([
      ["guard.tripped", "guard", 2],
      ["rollback", "guard", 3],
    ]);
    expect(audit).toContainEqual(["guard.add", "test-admin", 2]);
    const tripped = (await api.policies.audit({})).items[0]!;
    expect(tripped.detail).toMatchObject({ reason: "hit rate −30.0 points", rollbackVersion: 3, to: 1 });

    const marks = await api.annotations.policies({ range: { from: T0 - MIN, to: APPLIED + 10 * MIN } });
    expect(marks.map((m) => m.label)).toEqual([
      "frontend v1 published",
      "frontend v2 published",
      "frontend v2 rolled back by guard: hit rate −30.0 points",
    ]);
  });

  it("trips on a TTFT p95 rise but not with too little traffic, and stops when a newer version is published", async () => {
    const db = testDb();
    await publishGuarded(db, { ttftP95RisePct: 20, windowMinutes: 10 });
    store(db, [...requests(APPLIED - 10 * MIN, 10 * MIN, 150, 100, 0.8), ack(2, APPLIED)]);
    store(db, requests(APPLIED, 2 * MIN, 10, 900, 0.8));
    expect((await evaluate(db, APPLIED + 2 * MIN))[0]!.state).toBe("watching");
    const api = testCaller(db, () => APPLIED + 2 * MIN);
    const guard = (await api.policies.history({ kind: "frontend" })).items[0]!.guard!;
    expect(guard.message).toMatch(/too little traffic to judge \(\d+ requests before, 10 after/);
    expect((await api.policies.latest({ kind: "frontend" }))!.version).toBe(2);

    store(db, requests(APPLIED + 2 * MIN, MIN, 40, 134, 0.8));
    const [out] = await evaluate(db, APPLIED + 3 * MIN);
    expect(out).toMatchObject({ state: "tripped", rollbackVersion: 3 });
    expect((await api.policies.latest({ kind: "frontend" }))!.comment).toMatch(
      /^rolled back by guard: TTFT p95 \+\d+%/,
    );

    const db2 = testDb();
    await publishGuarded(db2, { ttftP95RisePct: 20 });
    await testCaller(db2, () => T0 + 2 * MIN).policies.publish({ kind: "frontend", document: {}, baseVersion: 2 });
    expect(await evaluate(db2, T0 + 3 * MIN)).toEqual([
      { kind: "frontend", version: 2, state: "superseded", rollbackVersion: null },
    ]);
    expect((await testCaller(db2).policies.audit({})).items[0]).toMatchObject({ action: "guard.superseded" });
  });

  it("passes when the window ends within the limits, and says so in the audit log", async () => {
    const db = testDb();
    await publishGuarded(db, { ttftP95RisePct: 20, hitRateDropPoints: 5, windowMinutes: 3 });
    store(db, [
      ...requests(APPLIED - 3 * MIN, 3 * MIN, 60, 100, 0.8),
      ack(2, APPLIED),
      ...requests(APPLIED, 3 * MIN, 60, 110, 0.78),
    ]);
    expect((await evaluate(db, APPLIED + 2 * MIN))[0]!.state).toBe("watching");
    expect((await evaluate(db, APPLIED + 3 * MIN + 1))[0]!.state).toBe("passed");
    expect(await evaluate(db, APPLIED + 4 * MIN)).toEqual([]);
    const api = testCaller(db);
    expect((await api.policies.latest({ kind: "frontend" }))!.version).toBe(2);
    expect((await api.policies.audit({})).items[0]).toMatchObject({
      action: "guard.passed",
      actor: "guard",
      version: 2,
      detail: { message: "passed after 3 min: TTFT p95 +10% (limit +20%), hit rate −2.0 points (limit −5)" },
    });
  });

  it.each<[string, unknown, string]>([
    ["no limit", { windowMinutes: 10 }, "ttftP95RisePct"],
    ["a rise of 0%", { ttftP95RisePct: 0 }, "ttftP95RisePct"],
    ["an absurd drop", { hitRateDropPoints: 500 }, "hitRateDropPoints"],
    ["a window of 0 minutes", { hitRateDropPoints: 5, windowMinutes: 0 }, "windowMinutes"],
    ["a window of 3 hours", { hitRateDropPoints: 5, windowMinutes: 180 }, "windowMinutes"],
  ])("refuses a guard with %s, field by field, and publishes nothing", async (_name, guard, field) => {
    const db = testDb();
    const api = testCaller(db, () => T0);
    await api.policies.publish({ kind: "frontend", document: {}, baseVersion: null });
    const err = await caught(api.policies.publish({ kind: "frontend", document: {}, baseVersion: 1, guard } as never));
    expect(err.code).toBe("BAD_REQUEST");
    expect(JSON.stringify(err.cause)).toContain(field);
    expect((await api.policies.latest({ kind: "frontend" }))!.version).toBe(1);
  });

  it("refuses a guard on a first version (nothing to roll back to)", async () => {
    const api = testCaller(testDb(), () => T0);
    const err = await caught(
      api.policies.publish({ kind: "frontend", document: {}, baseVersion: null, guard: { ttftP95RisePct: 20 } }),
    );
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.cause).toMatchObject({ details: { errors: [{ path: "guard" }] } });
    expect(await api.policies.latest({ kind: "frontend" })).toBeNull();
  });
});

describe("policies.impact", () => {
  it("measures equal windows before and after each target's ack, with no prediction stored", async () => {
    const db = testDb();
    await publishGuarded(db, { ttftP95RisePct: 500, windowMinutes: 120 });
    store(db, [
      ...requests(APPLIED - 20 * MIN, 20 * MIN, 50, 100, 0.58),
      ack(2, APPLIED),
      ack(2, APPLIED + 5_000, "rejected", "edge"),
      ...requests(APPLIED, 12 * MIN, 50, 80, 0.81),
    ]);
    const api = testCaller(db, () => APPLIED + 12 * MIN);
    const res = await api.policies.impact({ kind: "frontend", version: 2 });
    expect(res.prediction).toBeNull();
    expect(res.guard).toMatchObject({ state: "waiting", windowMinutes: 120 });
    expect(res.targets).toHaveLength(2);
    expect(res.targets[0]).toMatchObject({ target: "edge", state: "rejected", message: "refused: unknown field" });
    const sim = res.targets[1]!;
    if (sim.state !== "measured") throw new Error("expected a measurement");
    expect(sim.windows).toMatchObject({ measuredMs: 12 * MIN, cut: "complete" });
    expect(sim.before).toMatchObject({ requests: 30, hitRate: 0.58, ttftP95Ms: 100 });
    expect(sim.after).toMatchObject({ requests: 50, hitRate: 0.81, ttftP95Ms: 80 });
    expect(sim.causesComplete).toBe(false);

    const filling = await api.policies.impact({ kind: "frontend", version: 2, windowMinutes: 60 });
    expect(filling.targets[1]).toMatchObject({ windows: { lengthMs: 60 * MIN, measuredMs: 12 * MIN, cut: "filling" } });
    expect((await api.policies.impact({ kind: "frontend", version: 1 })).targets).toEqual([]);
    expect((await caught(api.policies.impact({ kind: "frontend", version: 9 }))).code).toBe("NOT_FOUND");
    expect((await caught(api.policies.impact({ kind: "frontend", version: 2, windowMinutes: 0 }))).code).toBe(
      "BAD_REQUEST",
    );
  });
});
