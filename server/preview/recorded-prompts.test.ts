import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { PRESSURE_RETENTION_CANDIDATE } from "../../test/preview-candidates";
import { prepareRuns, replayRun } from "./compute";
import { promptsOf } from "./recorded-prompts";
import { replayOnce } from "./run";
import { T0 } from "../sim/test-support";
import { preparePreview } from "./request";
import { recordedPressure, request, START, WINDOW } from "./test-support";

// The runs of one read window share the prompts the first run made: a run that takes them as made must answer exactly
// as a run that makes its own, whichever run comes first.

let dir: string;
let db: Db;

beforeAll(async () => {
  ({ dir, db } = recordedPressure("switchyard-preview-prompts-"));
}, 60_000);

afterAll(async () => {
  db?.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Prep = Awaited<ReturnType<typeof prepareRuns>>;
/** The same prepared window with prompt shapes of its own (so its runs make their own prompts). */
const alone = (p: Prep): Prep => ({ ...p, plan: { ...p.plan, shapes: new Map(p.plan.shapes) } });
const none = () => undefined;

describe("prompts shared by the runs of a window", () => {
  it("answer as prompts made afresh for each run, baseline first or candidate first", async () => {
    const prep = await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE));
    const fresh = [replayRun(alone(prep), 0, none), replayRun(alone(prep), 1, none)];
    expect(fresh[0]!.summary).not.toEqual(fresh[1]!.summary);

    const book = promptsOf(prep.input.turns, prep.plan.shapes, prep.plan.shape.blockSize, "as_recorded");
    const base = replayRun(prep, 0, none);
    const sample = book.of(0);
    const cand = replayRun(prep, 1, none);
    expect(book.of(0)).toBe(sample);
    expect(promptsOf(prep.input.turns, prep.plan.shapes, prep.plan.shape.blockSize, "as_recorded")).toBe(book);
    expect([base.summary, cand.summary]).toEqual([fresh[0]!.summary, fresh[1]!.summary]);
    expect([Array.from(base.cached), Array.from(cand.cached)]).toEqual([
      Array.from(fresh[0]!.cached),
      Array.from(fresh[1]!.cached),
    ]);

    const other = alone(prep);
    const candFirst = replayRun(other, 1, none);
    const baseAfter = replayRun(other, 0, none);
    expect([baseAfter.summary, candFirst.summary]).toEqual([fresh[0]!.summary, fresh[1]!.summary]);
    // A third run on prompts two runs used.
    expect(replayRun(other, 1, none).summary).toEqual(fresh[1]!.summary);
  }, 120_000);

  it("tell the collector a new view's opening is known only when a turn of the same run sent it: as looking up every block", async () => {
    // From the recording's first turn, so that the first trajectory to send each opening counts.
    const window = { from: T0, to: WINDOW.to };
    const doc = PRESSURE_RETENTION_CANDIDATE;
    const prep = await prepareRuns(
      db,
      preparePreview({ kind: "retention", document: doc, window, baseline: START }, window.to),
    );
    let known = 0;
    const run = (r: 0 | 1, lookUpAll: boolean) => {
      const [docs, header] = prep.plan.runs[r]!;
      return replayOnce(prep.input, docs, header, prep.plan.shape, prep.plan.shapes, none, undefined, (c) => ({
        sent: (i, req, contents, k) => {
          known += k;
          c.sent(i, req, contents, lookUpAll ? 0 : k);
        },
        done: (i, req) => c.done(i, req),
      }));
    };
    for (const r of [0, 1] as const) {
      known = 0;
      const told = run(r, false);
      expect(known).toBeGreaterThan(0);
      expect(run(r, true).summary).toEqual(told.summary);
    }
  }, 120_000);

  it("are made in each run, not kept, when the turns' blocks do not fit the replay's block size", async () => {
    const prep = await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE));
    const coarse: Prep = { ...prep, plan: { ...prep.plan, shape: { ...prep.plan.shape, blockSize: 32 } } };
    const fresh = replayRun(alone(coarse), 1, none);
    const book = promptsOf(prep.input.turns, prep.plan.shapes, 32, "as_recorded");
    expect(replayRun(coarse, 1, none).summary).toEqual(fresh.summary);
    expect(book.of(0)).not.toBe(book.of(0));
    expect(replayRun(coarse, 1, none).summary).toEqual(fresh.summary);
  }, 120_000);

  it("are made apart for another header mode or block size, and for other turns", async () => {
    const prep = await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE));
    const { turns } = prep.input;
    const { shapes } = prep.plan;
    const book = promptsOf(turns, shapes, 16, "as_recorded");
    expect(promptsOf(turns, shapes, 16, "strip")).not.toBe(book);
    expect(promptsOf(turns, shapes, 32, "as_recorded")).not.toBe(book);
    expect(promptsOf([...turns], shapes, 16, "as_recorded")).not.toBe(book);
  });
});
