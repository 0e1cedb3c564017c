import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../db/client";
import { chainsOf } from "../../db/queries/chains";
import { storeEvents } from "../../db/queries/ingest";
import { parseEvent, type TelemetryEvent } from "../ingest/events";
import { runScenario, T0 } from "../sim/test-support";
import { AFTER_MS, loadWindow, WARMUP_MS } from "./load";

// The window read builds every turn's chain in one pass over the rows (a base built earlier in the pass reused, only
// the first sequence hash taken): each turn must hold exactly the chain the per-row reader gives for its row.

const SECONDS = 240;
const WINDOW = { from: T0 + 120_000, to: T0 + 180_000 };

let dir: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-preview-load-"));
  db = openDb(path.join(dir, "store.db"));
  const events: TelemetryEvent[] = [];
  for (const e of runScenario({ scenario: "preamble", seconds: SECONDS })) {
    const p = parseEvent(JSON.parse(JSON.stringify(e)));
    if (p.ok) events.push(p.event);
  }
  for (let i = 0; i < events.length; i += 2000) storeEvents(db, events.slice(i, i + 2000));
}, 60_000);

afterAll(() => {
  db?.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const pairs = (b: Buffer | null | undefined) => {
  if (!b) return null;
  const out: number[] = [];
  for (let i = 0; i < b.byteLength; i += 8) out.push(b.readUInt32BE(i), b.readUInt32BE(i + 4));
  return out;
};

describe("loadWindow", () => {
  it("gives every turn the chain and first sequence hash its row holds", () => {
    const input = loadWindow(db, WINDOW.from, WINDOW.to, {});
    const rows = db.$client
      .prepare("SELECT id FROM requests WHERE arrived_at >= ? AND arrived_at < ? ORDER BY arrived_at, rowid")
      .pluck()
      .all(WINDOW.from - WARMUP_MS, WINDOW.to + AFTER_MS) as string[];
    expect(input.turns.length).toBe(rows.length);
    const extending = input.turns.filter((t) => t.blocks !== null && t.blocks.length > 2).length;
    expect(extending).toBeGreaterThan(50);
    rows.forEach((id, i) => {
      const c = chainsOf(db, id);
      const t = input.turns[i]!;
      const want = c?.local && c.local.byteLength > 0 ? c.local : (c?.seq ?? null);
      expect(t.blocks === null ? null : [...t.blocks]).toEqual(pairs(want));
      expect(t.firstSeq).toEqual(pairs(c?.seq && c.seq.byteLength >= 8 ? c.seq.subarray(0, 8) : null));
    });
  });

  it.each([
    ["a window with no traffic", T0 + 3_600_000, T0 + 3_660_000, "no recorded traffic"],
    ["a window before the recording", T0 - 600_000, T0 - 540_000, "no recorded traffic"],
  ])("refuses %s", (_name, from, to, message) => {
    expect(() => loadWindow(db, from, to, {})).toThrow(message);
  });
});
