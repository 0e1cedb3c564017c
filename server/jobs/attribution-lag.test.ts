import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { minimal, parsed, T0 } from "../../test/events";
import { insertEvents } from "../../db/sqlite/ingest";
import { describeLag } from "../../lib/attribution-lag";
import { attributionLagOf, runAttribution } from "./attribution";

// The overview's "attributing: N behind" counts from when the oldest request not judged yet was stored (its event
// time: a request event is sent when the turn ends), not from the turn's arrival a whole turn earlier. Otherwise a
// job that is up to date reads 10–25 s behind whenever a long turn was stored since its last step.

let n = 0;
/** A turn that arrived at `at`, ended (and was sent, so stored) at `end`. */
const turn = (at: number, end: number) =>
  minimal.request({
    id: `lag-req-${++n}`,
    ts: end,
    request_id: `lag-r-${n}`,
    session_id: "s-lag",
    trajectory_id: "s-lag-main",
    worker_id: "w1",
    arrived_at: at,
    first_token_at: at + 10,
    finished_at: end,
    input_tokens: 12,
    cached_tokens: 0,
    block_size: 4,
    sequence_hashes: [`${n}1`, `${n}2`, `${n}3`],
  });

describe("attribution lag", () => {
  it.each([
    // [case, turns as [arrived, stored] ms before now, text before the job runs]
    ["a 13 s turn stored half a second ago is up to date", [[13_500, 500]], "attributing: up to date"],
    ["a turn stored 45 s ago and not judged is 45 s behind", [[58_000, 45_000]], "attributing: 45 s behind"],
    [
      "the oldest stored turn counts, not the oldest arrival",
      [
        [300_000, 1_000],
        [240_000, 240_000],
      ],
      "attributing: 4 min behind",
    ],
    ["a sender's clock ahead of now reads up to date, never negative", [[-1_000, -5_000]], "attributing: up to date"],
  ] as const)("%s", (_, turns, text) => {
    const now = T0 + 3_600_000;
    const db = testDb();
    insertEvents(
      db,
      turns.map(([at, end]) => parsed(turn(now - at, now - end))),
    );
    const lag = attributionLagOf(db, now);
    expect(lag.caughtUp).toBe(false);
    expect(lag.behindMs).toBe(Math.max(0, Math.max(...turns.map(([, end]) => end))));
    expect(describeLag(lag)).toBe(text);
    runAttribution(db);
    expect(attributionLagOf(db, now)).toEqual({ caughtUp: true, behindMs: 0, oldestPendingAt: null });
  });
});
