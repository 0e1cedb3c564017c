import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { parsed, stats, type Raw } from "../../test/events";
import type { PgDb } from "../pg/client";
import { insertEventsPg } from "../pg/ingest";
import type { IngestRow } from "../rows/ingest";
import type { Db } from "../sqlite/client";
import { insertEvents } from "../sqlite/ingest";
import type { Store } from "./store";
import {
  alertHistory,
  alertReceivers,
  alertStates,
  preemptionRates,
  removeReceiver,
  saveEvaluation,
  upsertReceiver,
  type AlertEvent,
  type StoredAlertState,
} from "./alerts";

async function ingest(s: Store, raws: Raw[]): Promise<void> {
  const rows = raws.map(parsed) as IngestRow[];
  if (s.engine === "pg") await insertEventsPg(s.db as unknown as PgDb, rows);
  else insertEvents(s.db as unknown as Db, rows);
}

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

    it("reads each worker's preemptions per minute from its raw samples, a counter drop counted as a restart", async () => {
      const samples: Raw[] = [];
      // w1: +3 every 10 s for a minute (18/min); w2: 10, 12, then restarted at 1, 4 (2 + 1 + 3 = 6 over 30 s); w3: one sample.
      for (let i = 0; i <= 6; i++) samples.push(stats("w1", T + i * 10_000, 100, 50, { preemptions: 3 * i }));
      [10, 12, 1, 4].forEach((n, i) => samples.push(stats("w2", T + i * 10_000, 100, 50, { preemptions: n })));
      samples.push(stats("w3", T, 100, 50, { preemptions: 7 }));
      samples.push(stats("w4", T, 100, 50));
      await ingest(s.a, samples);
      const rates = await preemptionRates(s.b, T, T + 60_001);
      expect(Object.fromEntries(rates)).toEqual({ w1: 18, w2: 12, w3: null });
      expect(Object.fromEntries(await preemptionRates(s.b, T + 30_000, T + 60_001))).toEqual({ w1: 18, w2: null });
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
