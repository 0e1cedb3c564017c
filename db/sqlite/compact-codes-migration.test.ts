import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { encodeHashes } from "../codecs/chains";
import { openDb } from "./client";
import { KV_OPS, KV_REASONS } from "../codecs/kv-codes";
import { migratedDatabases } from "../../test/migrated-at";
import { minimal, parsed, T0 } from "../../test/events";
import { insertEvents } from "./ingest";
import { sqliteStore } from "../store/store";
import { removalsByReason, storedByClass } from "../store/worker-activity";

const { databaseAt, cleanup } = migratedDatabases();
afterEach(cleanup);

const indexesOf = (db: Database.Database, table: string) =>
  db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name").pluck().all(table);

/** A database as release 0022 left it, with rows of every table 0023 rebuilds. */
function oldDatabase(): string {
  const file = databaseAt("0022_seq_refs");
  const old = new Database(file);
  const kv = old.prepare(
    `INSERT INTO kv_events (rowid, id, id_key, ts, op, worker_id, block_count, block_hashes, retention_class, session_id, reason)
     VALUES (?, NULL, ?, ?, ?, 'w1', ?, ?, ?, ?, ?)`,
  );
  kv.run(4, 11, T0, "stored", 2, encodeHashes(["1", "2"]), "system_prompt", "s1", null);
  kv.run(7, 12, T0 + 10, "removed", 1, encodeHashes(["2"]), null, null, "ttl");
  kv.run(8, 13, T0 + 20, "removed", 1, encodeHashes(["1"]), null, null, "offloaded");
  kv.run(9, 14, T0 + 30, "cleared", 0, null, null, null, "cleared");
  old
    .prepare(
      `INSERT INTO worker_stats (rowid, id, ts, worker_id, kv_active_blocks, kv_total_blocks, requests_running, requests_waiting,
         prefix_query_tokens, prefix_hit_tokens) VALUES (3, 'ws-1', ?, 'w1', 10, 100, 1, 0, '18446744073709551615', '7')`,
    )
    .run(T0);
  old
    .prepare(
      `INSERT INTO route_decisions (rowid, id, ts, request_id, prompt_blocks, chosen_worker_id, chosen_overlap_blocks,
         best_overlap_blocks, candidate_count, candidates, overlap_credit, prefill_load_scale, temperature)
       VALUES (5, 'rd-1', ?, 'r1', 4, 'w1', 2, 3, 1, 'w1,2,0', 1, 1, 0)`,
    )
    .run(T0);
  old
    .prepare(
      `INSERT INTO tools (rowid, id, ts, session_id, tool_call_id, name, started_at, status) VALUES (6, 'tl-1', ?, 's1', 'c1', 'Read', ?, 'succeeded')`,
    )
    .run(T0, T0);
  old
    .prepare(
      `INSERT INTO reasoning_spans (rowid, id, ts, request_id, tokens, started_at, ended_at) VALUES (2, 'rs-1', ?, 'r1', 5, ?, ?)`,
    )
    .run(T0, T0, T0 + 1);
  old
    .prepare(
      `INSERT INTO request_causes (id, request_id, session_id, arrived_at, recomputed, cold, diverged, evicted, routed_away, unknown)
       VALUES ('rq-1', 'r1', 's1', ?, 8, 1, 2, 3, 1, 1), ('rq-gone', 'r0', 's1', ?, 4, 4, 0, 0, 0, 0)`,
    )
    .run(T0, T0 - 5);
  old
    .prepare(
      `INSERT INTO requests (rowid, id, ts, request_id, session_id, api, model, arrived_at, input_tokens, cached_tokens, output_tokens, status)
       VALUES (9, 'rq-1', ?, 'r1', 's1', 'responses', 'm', ?, 8, 0, 1, 'ok')`,
    )
    .run(T0, T0);
  old.close();
  return file;
}

describe("kv_events' codes (db/codecs/kv-codes.ts)", () => {
  it("decode in SQL to every op and reason a row can hold, and null for none", () => {
    const db = openDb(":memory:");
    const put = db.$client.prepare(
      "INSERT INTO kv_events (id_key, ts, op_code, worker_id, block_count, reason_code) VALUES (?, ?, ?, 'w1', 0, ?)",
    );
    let k = 0;
    for (let op = 0; op < KV_OPS.length; op++) put.run(++k, T0, op, null);
    for (let r = 0; r < KV_REASONS.length; r++) put.run(++k, T0, 0, r);
    const rows = db.$client.prepare("SELECT op, reason FROM kv_events ORDER BY rowid").raw().all();
    expect(rows).toEqual([...KV_OPS.map((op) => [op, null]), ...KV_REASONS.map((r) => ["removed", r])]);
  });
});

describe("migration 0023 (codes, ids unique with ts, request_causes without copies)", () => {
  it("keeps every row with its rowid and values, and readers see the same strings", async () => {
    const db = openDb(oldDatabase());
    const c = db.$client;
    expect(
      c
        .prepare("SELECT rowid, op, op_code, reason, reason_code, retention_class FROM kv_events ORDER BY rowid")
        .raw()
        .all(),
    ).toEqual([
      [4, "stored", 1, null, null, "system_prompt"],
      [7, "removed", 0, "ttl", 1, null],
      [8, "removed", 0, "offloaded", 5, null],
      [9, "cleared", 2, "cleared", 4, null],
    ]);
    const columns = c.prepare("SELECT name FROM pragma_table_info('kv_events')").pluck().all();
    expect(columns).not.toContain("session_id");
    expect(await removalsByReason(sqliteStore(db), "w1", T0, T0 + 60_000)).toEqual([
      { reason: "offloaded", blocks: 1, events: 1 },
      { reason: "ttl", blocks: 1, events: 1 },
      { reason: "cleared", blocks: 0, events: 1 },
    ]);
    expect(await storedByClass(sqliteStore(db), "w1", T0, T0 + 60_000, 60_000)).toEqual([
      { t: T0 - (T0 % 60_000), retentionClass: "system_prompt", blocks: 2 },
    ]);

    expect(c.prepare("SELECT rowid, id, prefix_query_tokens FROM worker_stats").raw().all()).toEqual([
      [3, "ws-1", "18446744073709551615"],
    ]);
    expect(c.prepare("SELECT rowid, id, candidates FROM route_decisions").raw().all()).toEqual([[5, "rd-1", "w1,2,0"]]);
    expect(c.prepare("SELECT rowid, id, name FROM tools").raw().all()).toEqual([[6, "tl-1", "Read"]]);
    expect(c.prepare("SELECT rowid, id, tokens FROM reasoning_spans").raw().all()).toEqual([[2, "rs-1", 5]]);
    expect(
      c
        .prepare(
          "SELECT r.id, rc.arrived_at, rc.recomputed, rc.cold, rc.diverged, rc.evicted FROM request_causes rc LEFT JOIN requests r ON r.rowid = rc.rid ORDER BY rc.rid",
        )
        .raw()
        .all(),
    ).toEqual([
      [null, T0 - 5, 4, 4, 0, 0],
      ["rq-1", T0, 8, 1, 2, 3],
    ]);

    expect(indexesOf(c, "worker_stats")).toEqual(["worker_stats_ts", "worker_stats_worker_ts"]);
    expect(indexesOf(c, "route_decisions")).toEqual([
      "route_decisions_request",
      "route_decisions_ts",
      "route_decisions_worker_ts",
    ]);
    expect(indexesOf(c, "tools")).toEqual(["tools_session", "tools_ts"]);
    expect(indexesOf(c, "reasoning_spans")).toEqual(["reasoning_request", "reasoning_ts"]);
    expect(indexesOf(c, "request_causes")).toEqual(["request_causes_arrived"]);
  });

  it("answers a re-sent event as a duplicate after it, for rows stored before and after", () => {
    const db = openDb(oldDatabase());
    const stats = minimal["worker.stats"]({ id: "ws-1", ts: T0 });
    const tool = minimal.tool({ id: "tl-1", ts: T0 });
    const fresh = minimal["worker.stats"]({ id: "ws-2", ts: T0 + 5 });
    expect(insertEvents(db, [parsed(stats), parsed(tool), parsed(fresh)])).toEqual([
      "duplicate",
      "duplicate",
      "accepted",
    ]);
    expect(insertEvents(db, [parsed(fresh)])).toEqual(["duplicate"]);
    expect(db.$client.prepare("SELECT max(rowid) FROM worker_stats").pluck().get()).toBe(4);
  });
});
