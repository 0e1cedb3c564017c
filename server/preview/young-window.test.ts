import { describe, expect, it } from "vitest";
import { openDb } from "../../db/sqlite/client";
import { insertEvents } from "../../db/sqlite/ingest";
import { parseEvent, type TelemetryEvent } from "../ingest/events";
import { runScenario, T0 } from "../sim/test-support";
import { computePreview } from "./compute";
import { preparePreview } from "./request";

// A cluster younger than the preview's window (a newcomer's fresh `npm start`, previewed on "the last hour"): the
// replay starts at the first recorded turn. It used to replay the empty stretch before it, in which the planner scaled
// the replayed cluster down to one worker, so every turn queued there (TTFT p50 over a minute against 0.5 s measured).

describe("preview of a window longer than the recording", () => {
  it("replays from the first recorded turn: the baseline fits what was measured and every worker takes load", async () => {
    const seconds = 150;
    const db = openDb(":memory:");
    const events: TelemetryEvent[] = [];
    for (const e of runScenario({ scenario: "steady", seconds })) {
      const p = parseEvent(JSON.parse(JSON.stringify(e)));
      if (p.ok) events.push(p.event);
    }
    for (let i = 0; i < events.length; i += 2000) insertEvents(db, events.slice(i, i + 2000));
    const to = T0 + seconds * 1000;
    const window = { from: to - 3_600_000, to };
    const r = await computePreview(
      db,
      preparePreview({ kind: "retention", document: { default: { priority: 12 } }, window }, to),
    );
    expect(r.measured.requests).toBeGreaterThan(100);
    expect(Math.abs(r.baseline.hit_rate! - r.measured.hit_rate!)).toBeLessThan(0.03);
    expect(r.baseline.ttft_p50_ms).toBeLessThan(3 * r.measured.ttft_p50_ms!);
    expect(r.baseline.workers.map((w) => w.worker_id)).toEqual(["w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8"]);
    for (const w of r.baseline.workers) expect(w.kv_mean).toBeGreaterThan(0.1);
  }, 120_000);
});
