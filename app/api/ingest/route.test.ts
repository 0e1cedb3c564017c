import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { full, minimal, ndjson, stats, T0, type Raw } from "@/test/events";
import type { BatchReply } from "@/server/ingest/batch";
import { idKey } from "@/db/ingest/kv-rows";
import { auth, events, ingestRouteHarness, NDJSON, TOKEN } from "./route-harness";
import { ingestRouteCases } from "./route.cases";

// The route on SQLite: the cases both engines share (route.cases.ts), then what only SQLite's file shows (the rows
// on disk, rollups, the write lock, the sender's report and source status).

const harness = ingestRouteHarness("SQLite");
const { file, fresh, storedIds, post } = harness;

ingestRouteCases(harness);

describe("POST /api/ingest on SQLite: the token check", () => {
  it("checks the token without waiting for a batch that holds the write lock", async () => {
    expect((await post(ndjson(events("auth-used", 1)), auth())).status).toBe(200);
    const { ingestTokenAccepted } = await import("@/server/runtime");
    const writer = new Database(file());
    writer.exec("BEGIN IMMEDIATE");
    try {
      const t = performance.now();
      expect(await ingestTokenAccepted(`Bearer ${TOKEN}`)).toBe(true);
      // The event loop's connection waits up to 250 ms for the write lock; a check must not take it at all.
      expect(performance.now() - t).toBeLessThan(200);
    } finally {
      writer.exec("COMMIT");
      writer.close();
    }
  });
});

describe("POST /api/ingest on SQLite: the file", () => {
  const batch: Raw[] = [
    full["worker.up"]({ id: "disk-up", worker_id: "w-disk" }),
    stats("w-disk", T0 + 1_000, 100, 40, { id: "disk-stats-1" }),
    stats("w-disk", T0 + 2_000, 300, 90, { id: "disk-stats-2" }),
    full.request({ id: "disk-request" }),
    full["kv.stored"]({ id: "disk-kv" }),
    minimal["kv.stored"]({ id: "disk-bad-kv", block_hashes: [1] }),
  ];
  const rollup = () =>
    fresh((db) =>
      db
        .prepare("SELECT samples, prefix_query_delta, prefix_hit_delta FROM worker_stats_1m WHERE worker_id = 'w-disk'")
        .all(),
    );

  it("the accepted rows are durable on disk when the reply is sent, rollups included", async () => {
    const res = await post(ndjson(batch), auth());
    expect(((await res.json()) as BatchReply).accepted).toBe(5);
    // durability: a separate connection opened right after the reply sees the accepted rows
    const seen = fresh((db) => ({
      request: db
        .prepare(
          "SELECT request_id, input_tokens, cached_tokens, first_token_at FROM requests WHERE id = 'disk-request'",
        )
        .get(),
      stats: db
        .prepare("SELECT id, prefix_query_tokens FROM worker_stats WHERE worker_id = 'w-disk' ORDER BY ts")
        .all(),
      worker: db.prepare("SELECT role, up_at FROM workers WHERE worker_id = 'w-disk'").get(),
      kv: db.prepare("SELECT block_hashes FROM kv_events WHERE id_key = ?").get(idKey("disk-kv")),
    }));
    expect(seen).toEqual({
      request: { request_id: "r1", input_tokens: 1000, cached_tokens: 800, first_token_at: T0 + 150 },
      stats: [
        { id: "disk-stats-1", prefix_query_tokens: "100" },
        { id: "disk-stats-2", prefix_query_tokens: "300" },
      ],
      worker: { role: "decode", up_at: T0 },
      // stored as 8-byte big-endian u64 words
      kv: { block_hashes: Buffer.from("0000000000000001ffffffffffffffff", "hex") },
    });
    expect(rollup()).toEqual([{ samples: 2, prefix_query_delta: 200, prefix_hit_delta: 50 }]);
    expect(await storedIds("disk-")).toEqual(["disk-kv", "disk-request", "disk-stats-1", "disk-stats-2", "disk-up"]);
  });

  it("re-sending the batch changes no rollup", async () => {
    const before = rollup();
    const res = await post(JSON.stringify(batch), auth("application/json"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 0, duplicate: 5, rejected: 1 });
    expect(rollup()).toEqual(before);
  });

  it("records a sender's dropped-events report from its headers, and ignores one without a token", async () => {
    const report = () =>
      fresh((db) => db.prepare("SELECT value FROM settings WHERE key = 'dropped_events:sim-test'").pluck().get());
    const unauthorized = await post("", {
      "content-type": NDJSON,
      "x-switchyard-dropped-events": "999",
      "x-switchyard-source": "sim-test",
    });
    expect(unauthorized.status).toBe(401);
    expect(report()).toBeUndefined();
    const res = await post("", { ...auth(), "x-switchyard-dropped-events": "150", "x-switchyard-source": "sim-test" });
    expect(res.status).toBe(200);
    expect(report()).toBe("150");
  });

  it("shows each sender on the Sources page by its X-Switchyard-Source name, with the events accepted", async () => {
    const status = (id: string) =>
      fresh((db) =>
        db
          .prepare("SELECT kind, name, events_total AS events, last_success_at AS at FROM source_status WHERE id = ?")
          .get(id),
      );
    await post(ndjson(events("sender-a", 3)), { ...auth(), "x-switchyard-source": "sim-a" });
    await post(ndjson([...events("sender-a", 3), ...events("sender-b", 2)]), {
      ...auth(),
      "x-switchyard-source": "sim-a",
    });
    expect(status("ingest:sim-a")).toMatchObject({
      kind: "ingest",
      name: "sim-a (ingest API)",
      events: 5,
      at: expect.any(Number),
    });
    const unnamed = () => (status("ingest:unknown") as { events: number } | undefined)?.events ?? 0;
    const before = unnamed();
    await post(ndjson(events("sender-c", 1)), auth());
    expect(unnamed()).toBe(before + 1);
    await post(ndjson(events("sender-d", 1)), { "content-type": NDJSON, "x-switchyard-source": "sim-x" });
    expect(status("ingest:sim-x")).toBeUndefined();
  });
});
