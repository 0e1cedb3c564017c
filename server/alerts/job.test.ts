import { describe, expect, it } from "vitest";
import { insertEvents } from "../../db/sqlite/ingest";
import { alertHistory, alertStates } from "../../db/store/alerts";
import { sqliteStore, type Store } from "../../db/store/store";
import { parseEvent, type TelemetryEvent } from "../ingest/events";
import { testDb } from "../../test/db";
import type { OutboundInit, OutboundReply } from "../outbound/fetch";
import { evaluateAlerts, rulesInForce, ALERTS_KIND } from "./job";
import { Outbox, type Receiver } from "./outbox";
import { RESEND_MS } from "./payload";

// The leader's evaluation over a real store: a worker preempting 12 requests a minute trips the preemption rule once
// it has held 30 s, the alert goes to the receiver with its labels and link, is sent again each minute, and resolves
// when the preemptions stop; a second process (a new leader) goes on from the stored states without a second page.

const T = Math.floor(1_800_000_000_000 / 60_000) * 60_000;
const am: Receiver = { id: "am", kind: "alertmanager", url: "http://am.example" };

function events(from: number, to: number, perSample: (t: number) => number, start = 0): TelemetryEvent[] {
  const out: TelemetryEvent[] = [];
  let n = start;
  const add = (e: Record<string, unknown>) => {
    const p = parseEvent(e);
    if (!p.ok) throw new Error(p.error);
    out.push(p.event);
  };
  if (from === T)
    add({
      id: "w1-up",
      kind: "worker.up",
      ts: T - 1000,
      cluster: "pressure",
      worker_id: "w1",
      role: "aggregated",
      model: "m",
      kv_total_blocks: 1000,
      block_size: 16,
    });
  for (let t = from; t < to; t += 10_000) {
    n += perSample(t);
    add({
      id: `w1-s${t}`,
      kind: "worker.stats",
      ts: t,
      cluster: "pressure",
      worker_id: "w1",
      kv_active_blocks: 900,
      kv_total_blocks: 1000,
      requests_running: 4,
      requests_waiting: 2,
      prefix_query_tokens: String(t - T),
      prefix_hit_tokens: "0",
      preemptions: n,
    });
  }
  return out;
}

async function publish(s: Store, version: number, enabled: boolean) {
  await s.db.insert(s.t.policyVersions).values({
    cluster: "default",
    kind: ALERTS_KIND,
    version,
    document: JSON.stringify({
      rules: [
        {
          name: "preemptions",
          enabled,
          metric: "preemptions_per_minute",
          threshold: 5,
          window_seconds: 60,
          for_seconds: 30,
          severity: "critical",
          summary: "{{worker}} preempts {{value}}/min",
        },
      ],
    }),
    author: "test",
    comment: "",
    createdAt: T,
    basedOn: null,
  });
}

function receiver() {
  const bodies: unknown[][] = [];
  const send = async (_url: string, init: OutboundInit): Promise<OutboundReply> => {
    bodies.push(JSON.parse(init.body!) as unknown[]);
    return { status: 200, contentType: "", text: "" };
  };
  return { send, bodies };
}

describe("evaluateAlerts", () => {
  it("reads the defaults (all off) before a version is published", async () => {
    const s = sqliteStore(testDb());
    const { rules, version } = await rulesInForce(s);
    expect(version).toBeNull();
    expect(rules.rules.every((r) => !r.enabled)).toBe(true);
    const r = receiver();
    const box = new Outbox(r.send, "http://sy", () => T);
    expect(await evaluateAlerts(s, box, [am], T)).toMatchObject({ rules: 0, firing: 0, fired: 0 });
  });

  it("fires after for_seconds, re-sends each minute, goes on under a new leader, and resolves", async () => {
    const db = testDb();
    const s = sqliteStore(db);
    await publish(s, 1, true);
    insertEvents(
      db,
      events(T, T + 180_000, () => 2),
    );
    const r = receiver();
    let now = T + 120_000;
    const box = new Outbox(r.send, "https://sy.example", () => now);

    expect(await evaluateAlerts(s, box, [am], now)).toMatchObject({ rules: 1, pending: 1, fired: 0 });
    now += 15_000;
    await evaluateAlerts(s, box, [am], now);
    await box.flush([am]);
    expect(r.bodies).toEqual([]);
    now += 15_000;
    expect(await evaluateAlerts(s, box, [am], now)).toMatchObject({ firing: 1, fired: 1 });
    await box.flush([am]);
    expect(r.bodies).toHaveLength(1);
    const [sent] = r.bodies[0] as {
      labels: Record<string, string>;
      annotations: Record<string, string>;
      endsAt: string;
    }[];
    expect(sent!.labels).toMatchObject({
      alertname: "preemptions",
      cluster: "pressure",
      worker: "w1",
      severity: "critical",
    });
    expect(sent!.annotations.summary).toBe("w1 preempts 12/min");
    expect(sent!.annotations.link).toBe("https://sy.example/workers/pressure%2Fw1?range=15m");
    expect(Date.parse(sent!.endsAt)).toBeGreaterThan(now);

    // A new leader: its own outbox, the same store. Nothing new until the resend is due.
    const r2 = receiver();
    const box2 = new Outbox(r2.send, "https://sy.example", () => now);
    now += 15_000;
    expect(await evaluateAlerts(s, box2, [am], now)).toMatchObject({ firing: 1, fired: 0 });
    await box2.flush([am]);
    expect(r2.bodies).toEqual([]);
    now += RESEND_MS;
    insertEvents(
      db,
      events(T + 180_000, T + 270_000, () => 2, 36),
    );
    await evaluateAlerts(s, box2, [am], now);
    await box2.flush([am]);
    expect(r2.bodies).toHaveLength(1);

    // The preemptions stop: resolved, sent with its end, and both transitions in the history.
    insertEvents(
      db,
      events(T + 270_000, T + 420_000, () => 0, 54),
    );
    now = T + 420_000;
    expect(await evaluateAlerts(s, box2, [am], now)).toMatchObject({ firing: 0, resolved: 1 });
    await box2.flush([am]);
    const last = r2.bodies.at(-1) as { endsAt: string }[];
    expect(Date.parse(last[0]!.endsAt)).toBe(now);
    expect((await alertHistory(s, T, now + 1)).map((e) => e.kind)).toEqual(["resolved", "firing"]);
    expect(await alertStates(s)).toEqual([]);
  });

  it("turning the rule off resolves what it had firing", async () => {
    const db = testDb();
    const s = sqliteStore(db);
    await publish(s, 1, true);
    insertEvents(
      db,
      events(T, T + 180_000, () => 2),
    );
    const r = receiver();
    const box = new Outbox(r.send, "http://sy", () => T);
    await evaluateAlerts(s, box, [am], T + 120_000);
    expect(await evaluateAlerts(s, box, [am], T + 150_000)).toMatchObject({ fired: 1 });
    await publish(s, 2, false);
    expect(await evaluateAlerts(s, box, [am], T + 165_000)).toMatchObject({ rules: 0, resolved: 1 });
  });
});
