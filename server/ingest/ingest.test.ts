import { beforeEach, describe, expect, it } from "vitest";
import { candidatesJson } from "../../db/codecs/candidates";
import { idKey } from "../../db/ingest/kv-rows";
import type { Db } from "../../db/sqlite/client";
import { testDb } from "../../test/db";
import { full, minimal, ndjson, stats, T0, type Raw } from "../../test/events";
import { AppError } from "../errors";
import type { EventKind } from "./events";
import { ingestBody } from "./ingest";

const hex = (...words: string[]) => Buffer.from(words.join(""), "hex");

const NDJSON = "application/x-ndjson";

const TABLES = [
  "worker_events",
  "worker_stats",
  "worker_stats_1m",
  "worker_counters",
  "workers",
  "kv_events",
  "route_decisions",
  "requests",
  "reasoning_spans",
  "tools",
  "planner_decisions",
  "policy_acks",
] as const;

function counts(db: Db): Record<string, number> {
  return Object.fromEntries(
    TABLES.map((t) => [t, db.$client.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number]),
  );
}

function dump(db: Db, table: string): unknown[] {
  return db.$client.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
}

/** A stored row by event id (kv_events keeps a hash of the id: its row is found by that and given the id back). */
function row(db: Db, table: string, id: string): Record<string, unknown> | undefined {
  if (table !== "kv_events")
    return db.$client.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
  const r = db.$client.prepare("SELECT * FROM kv_events WHERE id_key = ?").get(idKey(id)) as Record<string, unknown>;
  return r && { ...r, id: r.id ?? id };
}

let db: Db;
beforeEach(() => {
  db = testDb();
});

describe("ingestBody: per-item results", () => {
  it("reports each item in order with its index, line, id and status", () => {
    const body = [
      JSON.stringify(minimal["kv.cleared"]({ id: "a" })),
      "",
      "{broken",
      JSON.stringify(minimal["kv.cleared"]({ id: "b", ts: 1 })),
      JSON.stringify(minimal["kv.cleared"]({ id: "a" })),
    ].join("\n");
    const reply = ingestBody(db, body, NDJSON);
    expect(reply).toMatchObject({ accepted: 1, duplicate: 1, rejected: 2 });
    expect(reply.items.map(({ error: _e, ...r }) => r)).toEqual([
      { index: 0, line: 1, id: "a", status: "accepted" },
      { index: 1, line: 3, id: null, status: "rejected" },
      { index: 2, line: 4, id: "b", status: "rejected" },
      { index: 3, line: 5, id: "a", status: "duplicate" },
    ]);
    expect(reply.items[1]!.error).toBe("line 3: not valid JSON");
    expect(reply.items[2]!.error).toMatch(/^line 4: ts: /);
  });

  it("stores nothing when decoding refuses the body", () => {
    const before = counts(db);
    const many = Array.from({ length: 10_001 }, (_, i) => minimal["kv.cleared"]({ id: `e${i}` }));
    expect(() => ingestBody(db, ndjson(many), NDJSON)).toThrow(AppError);
    expect(() => ingestBody(db, JSON.stringify(many), "application/json")).toThrow(AppError);
    expect(counts(db)).toEqual(before);
  });
});

describe("ingestBody: idempotency", () => {
  const batch: Raw[] = [
    minimal["worker.up"](),
    stats("w1", T0, 100, 50),
    stats("w1", T0 + 10_000, 300, 120),
    stats("w1", T0 + 70_000, 500, 200),
    full.request(),
    full["kv.stored"](),
    full.tool(),
  ];

  it("re-sending the same batch marks every item duplicate and changes nothing", () => {
    const first = ingestBody(db, ndjson(batch), NDJSON);
    expect(first).toMatchObject({ accepted: batch.length, duplicate: 0, rejected: 0 });
    const rowsBefore = counts(db);
    const rollupsBefore = dump(db, "worker_stats_1m");
    const countersBefore = dump(db, "worker_counters");
    const workersBefore = dump(db, "workers");

    const again = ingestBody(db, ndjson(batch), NDJSON);
    expect(again).toMatchObject({ accepted: 0, duplicate: batch.length, rejected: 0 });
    expect(again.items.every((i) => i.status === "duplicate")).toBe(true);
    expect(counts(db)).toEqual(rowsBefore);
    expect(dump(db, "worker_stats_1m")).toEqual(rollupsBefore);
    expect(dump(db, "worker_counters")).toEqual(countersBefore);
    expect(dump(db, "workers")).toEqual(workersBefore);
  });

  it("a re-sent sample in a later batch adds nothing to the rollups", () => {
    ingestBody(db, ndjson(batch), NDJSON);
    const rollupsBefore = dump(db, "worker_stats_1m");
    const reply = ingestBody(
      db,
      ndjson([stats("w1", T0 + 10_000, 300, 120), stats("w1", T0 + 80_000, 600, 260)]),
      NDJSON,
    );
    expect(reply.items.map((i) => i.status)).toEqual(["duplicate", "accepted"]);
    const after = dump(db, "worker_stats_1m") as { minute: number; samples: number; prefix_query_delta: number }[];
    expect(after.filter((r) => r.minute === T0)).toEqual(
      (rollupsBefore as { minute: number }[]).filter((r) => r.minute === T0),
    );
    expect(after.find((r) => r.minute === T0 + 60_000)).toMatchObject({ samples: 2, prefix_query_delta: 200 + 100 });
  });

  it("the same id twice in one batch: the second is a duplicate and the first wins", () => {
    const reply = ingestBody(
      db,
      ndjson([minimal.request({ id: "dup", output_tokens: 1 }), minimal.request({ id: "dup", output_tokens: 999 })]),
      NDJSON,
    );
    expect(reply.items.map((i) => i.status)).toEqual(["accepted", "duplicate"]);
    expect(counts(db).requests).toBe(1);
    expect(row(db, "requests", "dup")).toMatchObject({ output_tokens: 1 });
  });

  it("a duplicate worker.stats in one batch is counted once in the rollup", () => {
    const s = stats("w1", T0 + 5_000, 100, 10, { requests_running: 7 });
    ingestBody(db, ndjson([s, s]), NDJSON);
    expect(dump(db, "worker_stats_1m")).toMatchObject([{ samples: 1, running_sum: 7 }]);
  });
});

describe("ingestBody: mixed batches", () => {
  it("stores exactly the good items", () => {
    const items: [Raw, boolean][] = [
      [minimal.request({ id: "good-1" }), true],
      [minimal.request({ id: "bad-1", cached_tokens: 5000 }), false],
      [minimal["kv.stored"]({ id: "bad-2", block_hashes: [123] }), false],
      [minimal["kv.stored"]({ id: "good-2" }), true],
      [minimal["worker.stats"]({ id: "bad-3", kv_active_blocks: 9999 }), false],
      [minimal["worker.stats"]({ id: "good-3" }), true],
      [{ id: "bad-4", kind: "nope", ts: T0 }, false],
      [minimal.tool({ id: "good-4" }), true],
    ];
    const reply = ingestBody(db, JSON.stringify(items.map(([e]) => e)), "application/json");
    expect(reply).toMatchObject({ accepted: 4, duplicate: 0, rejected: 4 });
    expect(reply.items.map((i) => [i.id, i.status])).toEqual(
      items.map(([e, ok]) => [e.id, ok ? "accepted" : "rejected"]),
    );
    const stored = TABLES.filter((t) => !["worker_stats_1m", "worker_counters", "workers"].includes(t)).flatMap((t) =>
      t === "kv_events"
        ? db.$client
            .prepare("SELECT id_key FROM kv_events")
            .pluck()
            .all()
            .map((k) => (k === idKey("good-2") ? "good-2" : k))
        : db.$client.prepare(`SELECT id FROM ${t}`).pluck().all(),
    );
    expect(stored.sort()).toEqual(["good-1", "good-2", "good-3", "good-4"]);
  });

  it("an item whose kind names an Object.prototype member is rejected alone", () => {
    const reply = ingestBody(
      db,
      ndjson([minimal.request({ id: "ok" }), { id: "weird", kind: "constructor", ts: T0 }]),
      NDJSON,
    );
    expect(reply.items.map((i) => i.status)).toEqual(["accepted", "rejected"]);
    expect(counts(db).requests).toBe(1);
  });

  it("an item with a non-numeric block hash is rejected alone", () => {
    const reply = ingestBody(
      db,
      ndjson([minimal.request({ id: "ok" }), minimal["kv.stored"]({ id: "weird", block_hashes: ["abc"] })]),
      NDJSON,
    );
    expect(reply.items.map((i) => i.status)).toEqual(["accepted", "rejected"]);
    expect(counts(db).requests).toBe(1);
  });
});

describe("ingestBody: every kind lands in its table", () => {
  const cases: [EventKind, string, Record<string, unknown>][] = [
    [
      "worker.up",
      "worker_events",
      {
        kind: "worker.up",
        worker_id: "w1",
        role: "decode",
        model: "llama",
        kv_total_blocks: 8192,
        block_size: 16,
        source: "sim",
      },
    ],
    ["worker.down", "worker_events", { kind: "worker.down", worker_id: "w1", reason: "drained", role: null }],
    [
      "worker.stats",
      "worker_stats",
      {
        worker_id: "w1",
        kv_active_blocks: 4100,
        kv_total_blocks: 8192,
        requests_running: 12,
        requests_waiting: 3,
        prefix_query_tokens: "918272",
        prefix_hit_tokens: "801002",
      },
    ],
    [
      "kv.stored",
      "kv_events",
      {
        op: "stored",
        block_count: 2,
        // 8-byte big-endian u64 per hash
        block_hashes: hex("0000000000000001", "ffffffffffffffff"),
        parent_hash: hex("000000000000002a"),
        // validated, not stored: nothing reads a KV event's local hashes (a turn's come from its request)
        local_hashes: null,
        retention_class: "system_prompt",
        op_code: 1,
        reason: null,
      },
    ],
    [
      "kv.removed",
      "kv_events",
      { op: "removed", block_count: 1, block_hashes: hex("0000000000000007"), reason: "agent_end" },
    ],
    ["kv.cleared", "kv_events", { op: "cleared", block_count: 0, block_hashes: null, reason: "cleared" }],
    [
      "route.decision",
      "route_decisions",
      {
        request_id: "r1",
        session_id: "s1",
        trajectory_id: "t1",
        chosen_worker_id: "w1",
        chosen_overlap_blocks: 4,
        best_overlap_blocks: 9,
        candidate_count: 2,
      },
    ],
    [
      "request",
      "requests",
      {
        request_id: "r1",
        session_id: "s1",
        api: "chat_completions",
        worker_id: "w1",
        arrived_at: T0,
        first_token_at: T0 + 150,
        finished_at: T0 + 2000,
        input_tokens: 1000,
        cached_tokens: 800,
        output_tokens: 50,
        reasoning_tokens: 20,
        status: "ok",
        agent_hints: "[5,200,true]",
        sequence_hashes: hex("000000000000000b", "000000000000000c"),
        seq_count: 2,
        chain_base: null,
        policy_versions: "[12,1,2,3]",
      },
    ],
    [
      "tool",
      "tools",
      {
        session_id: "s1",
        tool_call_id: "tc1",
        name: "bash",
        status: "succeeded",
        truncated: 1,
        budget_unit: "tokens",
        budget_limit: 4096,
        output_bytes: 2048,
      },
    ],
    [
      "reasoning",
      "reasoning_spans",
      { request_id: "r1", tool_call_id: "tc1", tokens: 300, started_at: T0, ended_at: T0 + 1500 },
    ],
    [
      "planner.decision",
      "planner_decisions",
      {
        role: "prefill",
        metric: "prefill_queue",
        action: "scale_up",
        replicas_before: 2,
        replicas_after: 3,
        observed: 12,
      },
    ],
    [
      "policy.ack",
      "policy_acks",
      { target: "frontend", policy_kind: "retention", version: 3, status: "applied", message: "ok" },
    ],
  ];

  it.each(cases)("%s → %s", (kind, table, expected) => {
    const event = full[kind]();
    const reply = ingestBody(db, ndjson([event]), NDJSON);
    expect(reply).toMatchObject({ accepted: 1, rejected: 0 });
    expect(row(db, table, event.id as string)).toMatchObject({ id: event.id, ts: T0, ...expected });
    expect(counts(db)[table]).toBe(1);
  });

  it("a route decision's candidates are stored compact and read back as the JSON the event carried", () => {
    const event = minimal["route.decision"]();
    ingestBody(db, ndjson([event]), NDJSON);
    const stored = row(db, "route_decisions", "rd-1")!.candidates as string;
    expect(stored.startsWith("[")).toBe(false);
    expect(candidatesJson(stored)).toBe(JSON.stringify(event.candidates));
  });

  it("absent optional fields are stored as NULL", () => {
    ingestBody(db, ndjson([minimal.request(), minimal.tool()]), NDJSON);
    expect(row(db, "requests", "req-1")).toMatchObject({
      session_id: null,
      first_token_at: null,
      agent_hints: null,
      sequence_hashes: null,
      source: null,
    });
    expect(row(db, "tools", "tool-1")).toMatchObject({ truncated: null, budget_unit: null, ended_at: null });
  });
});
