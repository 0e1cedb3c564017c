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

  it("mark each view's own blocks and lone contents as counting every prompt's blocks does, and answer as unmarked", async () => {
    const prep = alone(await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE)));
    const book = promptsOf(prep.input.turns, prep.plan.shapes, prep.plan.shape.blockSize, "as_recorded");
    const marked = replayRun(prep, 0, none);
    // Every turn's prompt (a kept one as kept; one of its own made again, with the same hashes), each view once.
    const prompts = prep.input.turns.map((_, i) => book.of(i));
    const views = new Map(prompts.map((p) => [p.view, p]));
    const seqCount = new Map<string, number>();
    const contentCount = new Map<number, number>();
    for (const [v, p] of views)
      for (let k = 0; k < v.length; k++) {
        seqCount.set(
          `${v.words[2 * k]}:${v.words[2 * k + 1]}`,
          (seqCount.get(`${v.words[2 * k]}:${v.words[2 * k + 1]}`) ?? 0) + 1,
        );
        contentCount.set(p.contents[k]!, (contentCount.get(p.contents[k]!) ?? 0) + 1);
      }
    const wrong: string[] = [];
    let own = 0;
    let lone = 0;
    let shared = 0;
    for (const [v, p] of views) {
      if (p.lone === null) {
        if (v.uniqueFrom !== Infinity) wrong.push("a prompt of its own is marked");
        continue;
      }
      let from = v.length;
      while (from > 0 && seqCount.get(`${v.words[2 * from - 2]}:${v.words[2 * from - 1]}`) === 1) from--;
      if (v.uniqueFrom !== from) wrong.push(`uniqueFrom ${v.uniqueFrom}, counted ${from}`);
      own += v.length - from;
      for (let k = 0; k < v.length; k++) {
        const expected = contentCount.get(p.contents[k]!) === 1 ? 1 : 0;
        if (p.lone[k] !== expected) wrong.push(`lone[${k}] ${p.lone[k]}`);
        if (expected) lone++;
        else shared++;
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    // What a run's collector may add to its seen-set: the kept views' blocks below uniqueFrom, every block of the others.
    let bound = 0;
    for (const [v, p] of views) bound += p.lone === null ? v.length : v.uniqueFrom;
    expect(book.lookupBound).toBe(bound);
    expect(bound).toBeLessThan(seqCount.size / 2);
    expect(own).toBeGreaterThan(0);
    expect(own).toBeLessThan(seqCount.size);
    expect(lone).toBeGreaterThan(0);
    expect(shared).toBeGreaterThan(0);
    // Without the marks (every block looked up in the index's table and the collector's sets), the same answer.
    for (const p of prompts) {
      p.view.uniqueFrom = Infinity;
      p.lone = null;
    }
    const unmarked = replayRun(prep, 0, none);
    expect(unmarked.summary).toEqual(marked.summary);
    expect(Array.from(unmarked.cached)).toEqual(Array.from(marked.cached));
  }, 120_000);

  it("leave a trajectory's stored blocks unrecorded only when nothing evicts on agent or session end", async () => {
    // The replay's policies are fixed, so without lifecycle eviction nobody reads those records; with it, they evict.
    const lifecycle = { rules: [], default: { priority: 50, ttl_seconds: null, evict_on: "agent_end" } };
    const withEnd = replayRun(alone(await prepareRuns(db, request(lifecycle))), 1, none).summary;
    const without = replayRun(alone(await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE))), 1, none).summary;
    expect(withEnd.evictions_by_reason.agent_end).toBeGreaterThan(0);
    expect(without.evictions_by_reason.agent_end ?? 0).toBe(0);
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
