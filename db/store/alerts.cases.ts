import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine, TwoStores } from "../../test/stores";
import {
  alertHistory,
  alertReceivers,
  alertStates,
  removeReceiver,
  saveEvaluation,
  upsertReceiver,
  type AlertEvent,
  type StoredAlertState,
} from "./alerts";

// The alerts store written once and run on each engine (alerts.test.ts: SQLite; alerts.pg.test.ts: PostgreSQL).

const T = 1_800_000_000_000;
const firing: StoredAlertState = {
  rule: "preemptions",
  key: "worker=w1",
  labels: { cluster: "default", worker: "w1" },
  state: "firing",
  activeAt: T,
  firedAt: T + 30_000,
  value: 9.5,
  summary: "w1 preempts 9.5/min",
  link: "/workers/w1",
  severity: "critical",
  sentAt: T + 30_000,
};
const event = (kind: AlertEvent["kind"], ts: number, rule = "preemptions"): AlertEvent => ({
  ts,
  rule,
  key: "worker=w1",
  kind,
  labels: { worker: "w1" },
  value: 9.5,
  summary: "s",
  link: "/workers/w1",
  severity: "critical",
});

export function alertsCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`alerts store on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("keeps the states of the last evaluation for another process (a new leader) to go on from", async () => {
      const pending = {
        ...firing,
        key: "worker=w2",
        state: "pending" as const,
        firedAt: null,
        value: null,
        sentAt: null,
      };
      await saveEvaluation(s.a, [firing, pending], [event("firing", T + 30_000)]);
      expect(await alertStates(s.b)).toEqual([firing, pending]);
      await saveEvaluation(s.b, [pending], [event("resolved", T + 60_000)]);
      expect(await alertStates(s.a)).toEqual([pending]);
      expect((await alertHistory(s.a, T, T + 120_000)).map((x) => x.kind)).toEqual(["resolved", "firing"]);
    });

    it("reads history by window and rule, newest first, bounded", async () => {
      await saveEvaluation(
        s.a,
        [],
        [event("firing", T), event("resolved", T + 10), event("firing", T + 20, "kv_full")],
      );
      expect((await alertHistory(s.a, T, T + 20)).map((x) => x.ts)).toEqual([T + 10, T]);
      expect((await alertHistory(s.a, 0, T + 100, 10, "kv_full")).map((x) => x.rule)).toEqual(["kv_full"]);
      expect(await alertHistory(s.a, 0, T + 100, 1)).toHaveLength(1);
      expect((await alertHistory(s.a, 0, T + 100))[0]).toEqual(event("firing", T + 20, "kv_full"));
    });

    it("adds, changes and removes receivers", async () => {
      const am = {
        id: "r1",
        name: "team AM",
        kind: "alertmanager" as const,
        url: "http://am:9093",
        secret: null,
        enabled: true,
      };
      await upsertReceiver(s.a, am, T);
      await upsertReceiver(s.a, { ...am, name: "on-call AM", enabled: false }, T + 5);
      expect(await alertReceivers(s.b)).toEqual([
        { ...am, name: "on-call AM", enabled: false, createdAt: T, updatedAt: T + 5 },
      ]);
      expect(await removeReceiver(s.b, "r1")).toBe(true);
      expect(await removeReceiver(s.b, "r1")).toBe(false);
      expect(await alertReceivers(s.a)).toEqual([]);
    });
  });
}
