import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import { insertEvents } from "../../db/sqlite/ingest";
import type { Db } from "../../db/sqlite/client";
import { runAttribution } from "./attribution";

const BS = 4;
let n = 0;
const id = (p: string) => `${p}-${++n}`;

function req(o: {
  rid: string;
  at: number;
  worker: string;
  seq: string[];
  local?: string[];
  cached?: number;
  session?: string;
  retention?: number;
}): Raw {
  return minimal.request({
    id: id("req"),
    ts: o.at + 50,
    request_id: o.rid,
    session_id: o.session ?? "s1",
    trajectory_id: `${o.session ?? "s1"}-main`,
    worker_id: o.worker,
    arrived_at: o.at,
    first_token_at: o.at + 10,
    finished_at: o.at + 50,
    input_tokens: o.seq.length * BS,
    cached_tokens: o.cached ?? 0,
    block_size: BS,
    sequence_hashes: o.seq,
    ...(o.local ? { local_hashes: o.local } : {}),
    policy_versions: { retention: o.retention ?? 1 },
  });
}
const stored = (worker: string, ts: number, hashes: string[]) =>
  minimal["kv.stored"]({ id: id("kvs"), ts, worker_id: worker, block_hashes: hashes });
const removed = (worker: string, ts: number, hashes: string[], reason: string) =>
  minimal["kv.removed"]({ id: id("kvr"), ts, worker_id: worker, block_hashes: hashes, reason });
const decision = (rid: string, ts: number, chosen: string, overlaps: Record<string, number>) =>
  minimal["route.decision"]({
    id: id("rd"),
    ts,
    request_id: rid,
    prompt_blocks: 3,
    chosen_worker_id: chosen,
    candidates: Object.entries(overlaps).map(([w, o]) => ({
      worker_id: w,
      overlap_blocks: o,
      prefill_blocks: 3 - o,
      decode_blocks: 0,
      cost: 3 - o,
    })),
  });

function causesOf(db: Db, rid: string) {
  return db.$client
    .prepare(
      `SELECT rc.recomputed, rc.cold, rc.diverged, rc.evicted, rc.routed_away AS routedAway, rc.unknown, rc.evicted_reason AS reason,
         rc.retention_version AS version FROM request_causes rc JOIN requests r ON r.rowid = rc.rid WHERE r.request_id = ?`,
    )
    .get(rid) as Record<string, number | string | null>;
}

function run(events: Raw[]): Db {
  const db = testDb();
  insertEvents(db, events.map(parsed));
  runAttribution(db);
  return db;
}

const A = ["11", "12", "13"];
const LA = ["101", "102", "103"];

describe("attribution job", () => {
  it("cold start: nothing held the prompt anywhere", () => {
    expect(causesOf(run([req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA })]), "r1")).toMatchObject({
      recomputed: 12,
      cold: 12,
    });
  });

  it("the same prefix on another worker that the router passed over is routed_away", () => {
    const db = run([
      stored("w1", T0, A),
      decision("r2", T0 + 10, "w2", { w1: 3, w2: 0 }),
      req({ rid: "r2", at: T0 + 10, worker: "w2", seq: A, local: LA }),
    ]);
    expect(causesOf(db, "r2")).toMatchObject({ recomputed: 12, routedAway: 12, cold: 0 });
  });

  it("without a decision, residency on another worker still says routed_away", () => {
    const db = run([
      req({ rid: "r1", at: T0 - 100, worker: "w1", seq: A, local: LA }),
      stored("w1", T0, A),
      req({ rid: "r2", at: T0 + 10, worker: "w2", seq: A, local: LA }),
    ]);
    expect(causesOf(db, "r2")).toMatchObject({ routedAway: 12 });
  });

  it.each(["capacity", "ttl", "agent_end"])(
    "removed by %s before the turn: evicted with the reason and the retention version in force",
    (reason) => {
      const db = run([
        req({ rid: "r1", at: T0 - 100, worker: "w1", seq: A, local: LA, retention: 7 }),
        stored("w1", T0, A),
        removed("w1", T0 + 5, A, reason),
        decision("r2", T0 + 10, "w1", { w1: 0, w2: 0 }),
        req({ rid: "r2", at: T0 + 10, worker: "w1", seq: A, local: LA, retention: 8 }),
      ]);
      expect(causesOf(db, "r2")).toMatchObject({ recomputed: 12, evicted: 12, reason, version: 7 });
    },
  );

  it("a block held only on a lower tier is not device residency: offloaded, then recomputed elsewhere, is evicted", () => {
    const db = run([
      req({ rid: "r1", at: T0 - 100, worker: "w1", seq: A, local: LA }),
      stored("w1", T0, A),
      removed("w1", T0 + 5, A, "offloaded"),
      { ...stored("w1", T0 + 5, A), storage_tier: "host" },
      req({ rid: "r2", at: T0 + 10, worker: "w2", seq: A, local: LA }),
    ]);
    expect(causesOf(db, "r2")).toMatchObject({ recomputed: 12, evicted: 12, routedAway: 0, reason: "offloaded" });
  });

  it("a removal from a lower tier leaves device residency as it was", () => {
    const db = run([
      req({ rid: "r1", at: T0 - 100, worker: "w1", seq: A, local: LA }),
      stored("w1", T0, A),
      { ...stored("w1", T0 + 2, A), storage_tier: "disk" },
      { ...removed("w1", T0 + 5, A, "capacity"), storage_tier: "disk" },
      req({ rid: "r2", at: T0 + 10, worker: "w2", seq: A, local: LA }),
    ]);
    expect(causesOf(db, "r2")).toMatchObject({ recomputed: 12, routedAway: 12, evicted: 0 });
  });

  it("a per-session header in block 0: block 0 is new, the identical rest diverged", () => {
    const db = run([
      req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA, session: "s1" }),
      stored("w1", T0 + 10, A),
      req({
        rid: "r2",
        at: T0 + 100,
        worker: "w1",
        seq: ["21", "22", "23"],
        local: ["201", "102", "103"],
        session: "s2",
      }),
    ]);
    expect(causesOf(db, "r2")).toMatchObject({ recomputed: 12, cold: 4, diverged: 8, evicted: 0 });
  });

  it("with the header stripped the second session hits the cache: nothing recomputed, nothing diverged", () => {
    const db = run([
      req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA, session: "s1" }),
      stored("w1", T0 + 10, A),
      req({ rid: "r2", at: T0 + 100, worker: "w1", seq: A, local: LA, session: "s2", cached: 12 }),
    ]);
    expect(causesOf(db, "r2")).toMatchObject({ recomputed: 0, diverged: 0, cold: 0 });
  });

  it("without local hashes a never-seen block is unknown, not a guess", () => {
    expect(causesOf(run([req({ rid: "r1", at: T0, worker: "w1", seq: A })]), "r1")).toMatchObject({
      unknown: 12,
      cold: 0,
    });
  });

  it("is incremental: a later run judges only new requests, with earlier ones remembered", () => {
    const db = run([
      req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA }),
      stored("w1", T0 + 10, A),
      removed("w1", T0 + 20, A, "ttl"),
    ]);
    insertEvents(db, [parsed(req({ rid: "r2", at: T0 + 100, worker: "w1", seq: A, local: LA }))]);
    expect(runAttribution(db).requests).toBe(1);
    expect(causesOf(db, "r2")).toMatchObject({ evicted: 12, reason: "ttl" });
  });

  it("keeps a session summary with the causes and tool wait", () => {
    const db = run([
      req({ rid: "r1", at: T0, worker: "w1", seq: A, local: LA }),
      minimal.tool({
        id: id("tool"),
        session_id: "s1",
        request_id: "r1",
        tool_call_id: "c1",
        started_at: T0 + 60,
        ended_at: T0 + 560,
        status: "succeeded",
      }),
    ]);
    const row = db.$client
      .prepare(
        "SELECT turns, cold, tool_calls AS tools, tool_wait_ms AS wait, ttft_p50 AS ttft FROM session_summaries WHERE session_id = 's1'",
      )
      .get();
    expect(row).toEqual({ turns: 1, cold: 12, tools: 1, wait: 500, ttft: 10 });
  });
});
