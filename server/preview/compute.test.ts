import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { PRESSURE_RETENTION_CANDIDATE } from "../../test/preview-candidates";
import { T0 } from "../sim/test-support";
import { baselineKey, forgetBaselines, keptBaseline } from "./baseline-cache";
import { MessageChannel } from "node:worker_threads";
import { helperOn, serveBaseline } from "./baseline-helper";
import { computePreview, computePreviewBeside, prepareRuns } from "./compute";
import { preparePreview } from "./request";
import { noTime, recordedPressure, request, START, WINDOW } from "./test-support";

// A preview keeps its baseline run for the next candidate on the same window: that candidate must answer exactly
// what a preview replaying both runs answers, and the kept run's key must change with everything the baseline replays.

const RULES = PRESSURE_RETENTION_CANDIDATE.rules;

let dir: string;
let db: Db;

beforeAll(async () => {
  ({ dir, db } = recordedPressure("switchyard-preview-compute-"));
}, 60_000);

afterAll(async () => {
  db?.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("preview with the baseline kept", () => {
  it("reuses the kept baseline for a second candidate and answers as replaying both runs does", async () => {
    forgetBaselines();
    const shares: number[] = [];
    const one = await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE), { progress: (s) => shares.push(s) });
    expect(shares.at(-1)).toBe(1);
    expect(shares.every((s, i) => i === 0 || s >= shares[i - 1]! - 1e-9)).toBe(true);
    expect(noTime(await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE)))).toEqual(noTime(one));
    const prep = await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE));
    expect(keptBaseline(prep.key)).not.toBeNull();
    // Another candidate on the same window: its baseline is the kept one, its own run differs.
    const other = { rules: [{ ...RULES[0]!, priority: 20 }] };
    const three = await computePreview(db, request(other));
    expect(three.baseline).toEqual(one.baseline);
    expect(three.candidate).not.toEqual(one.candidate);
    forgetBaselines();
    expect(noTime(await computePreview(db, request(other)))).toEqual(noTime(three));
  }, 120_000);

  it("keys the baseline by what it replays: other policies in force, another window or another row are new keys", async () => {
    const base = await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE));
    const cases: [string, () => Promise<string> | string][] = [
      ["the same request", async () => (await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE))).key],
      ["another candidate", async () => (await prepareRuns(db, request({ rules: [] }))).key],
      [
        "other policies in force",
        async () =>
          (
            await prepareRuns(
              db,
              preparePreview(
                {
                  kind: "retention",
                  document: { rules: [] },
                  window: WINDOW,
                  baseline: { ...START, routing: { overlap_credit: 0.5 } },
                },
                WINDOW.to,
              ),
            )
          ).key,
      ],
      [
        "a shorter window",
        async () =>
          (
            await prepareRuns(
              db,
              preparePreview(
                {
                  kind: "retention",
                  document: { rules: [] },
                  window: { ...WINDOW, to: WINDOW.to - 60_000 },
                  baseline: START,
                },
                WINDOW.to,
              ),
            )
          ).key,
      ],
      [
        "one turn's tokens changed",
        () => {
          const input = structuredClone(base.input);
          input.turns[input.turns.length >> 1]!.inputTokens += 1;
          return baselineKey(input, base.plan, null);
        },
      ],
    ];
    const keys = await Promise.all(cases.map(([, k]) => k()));
    expect(keys[0]).toBe(base.key);
    expect(keys[1]).toBe(base.key);
    for (const k of keys.slice(2)) expect(k).not.toBe(base.key);
  });
});

describe("preview with a baseline helper", () => {
  // The helper served on this thread: its run happens once the candidate has finished, but through the same
  // messages, shared memory and reply as between two threads.
  const served = () => {
    const { port1, port2 } = new MessageChannel();
    let finished = 0;
    serveBaseline(port2, () => finished++);
    return { helper: helperOn(port1), finished: () => finished };
  };
  const gone = async (settled: boolean) => {
    const { port1, port2 } = new MessageChannel();
    const helper = helperOn(port1);
    port2.close();
    if (settled) await new Promise((r) => setTimeout(r, 50));
    return helper;
  };

  it.each([
    ["a helper that replays the baseline", async () => served().helper],
    ["a helper that goes away (the baseline replayed here instead)", () => gone(false)],
    ["a helper gone before the preview starts", () => gone(true)],
  ])(
    "answers with %s as replaying both runs here does",
    async (_name, make) => {
      forgetBaselines();
      const want = noTime(await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE)));
      forgetBaselines();
      const shares: number[] = [];
      const got = await computePreviewBeside(
        db,
        request(PRESSURE_RETENTION_CANDIDATE),
        await make(),
        {
          progress: (s) => shares.push(s),
        },
        0,
      );
      expect(noTime(got)).toEqual(want);
      expect(shares.at(-1)).toBe(1);
      expect(shares.every((s) => s >= 0 && s <= 1)).toBe(true);
      expect(keptBaseline((await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE))).key)).not.toBeNull();
    },
    120_000,
  );

  it("gives the helper back unused when the baseline is kept, on a refused window and on a small one", async () => {
    forgetBaselines();
    await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE));
    const kept = served();
    const got = await computePreviewBeside(db, request({ rules: [] }), kept.helper, {}, 0);
    expect(got.baseline).toEqual((await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE))).baseline);
    await expect.poll(kept.finished).toBe(1);
    const empty = served();
    const window = { from: T0 + 3_600_000, to: T0 + 3_660_000 };
    const refused = preparePreview({ kind: "retention", document: { rules: [] }, window, baseline: START }, window.to);
    await expect(computePreviewBeside(db, refused, empty.helper, {}, 0)).rejects.toThrow(/no recorded traffic/);
    await expect.poll(empty.finished).toBe(1);
    // A window with fewer turns than the threshold replays both runs here: the helper is given back unused.
    forgetBaselines();
    const calls: string[] = [];
    const counting = {
      start: (): never => {
        calls.push("start");
        throw new Error("a small window is not helped");
      },
      release: () => void calls.push("release"),
    };
    const turns = (await prepareRuns(db, request(PRESSURE_RETENTION_CANDIDATE))).input.turns.length;
    const alone = await computePreviewBeside(db, request(PRESSURE_RETENTION_CANDIDATE), counting, {}, turns + 1);
    expect(noTime(alone)).toEqual(noTime(await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE))));
    expect(calls).toEqual(["release"]);
  }, 120_000);
});
