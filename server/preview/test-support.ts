import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "../../db/sqlite/client";
import { insertEvents } from "../../db/sqlite/ingest";
import { parseEvent, type TelemetryEvent } from "../ingest/events";
import { runScenario, T0 } from "../sim/test-support";
import { preparePreview } from "./request";
import type { PreviewResult } from "./types";

// Helpers shared by the preview's tests: a recorded window of the pressure scenario in a database file, and retention
// previews over it from the same policies in force.

export const RECORDED_SECONDS = 300;
export const WINDOW = { from: T0 + 120_000, to: T0 + RECORDED_SECONDS * 1000 };
/** The policies in force when the window was recorded (the baseline's). */
export const START = {
  frontend: { strip_anthropic_preamble: true },
  autoscaling: { aggregated: { min_replicas: 2, max_replicas: 2 } },
};

/** A retention preview of `document` over WINDOW, as the router prepares one. */
export const request = (document: unknown) =>
  preparePreview({ kind: "retention", document, window: WINDOW, baseline: START }, WINDOW.to);

/** A result without its run time, to compare two runs' answers. */
export const noTime = (r: PreviewResult) => ({ ...r, elapsed_ms: 0 });

/** A fresh database file in its own temporary folder holding RECORDED_SECONDS of the pressure scenario. */
export function recordedPressure(prefix: string): { dir: string; file: string; db: Db } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, "store.db");
  const db = openDb(file);
  const events: TelemetryEvent[] = [];
  for (const e of runScenario({ scenario: "pressure", seconds: RECORDED_SECONDS })) {
    const p = parseEvent(JSON.parse(JSON.stringify(e)));
    if (p.ok) events.push(p.event);
  }
  for (let i = 0; i < events.length; i += 2000) insertEvents(db, events.slice(i, i + 2000));
  return { dir, file, db };
}
