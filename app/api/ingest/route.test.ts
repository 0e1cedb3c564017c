import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { full, minimal, ndjson, stats, T0, type Raw } from "@/test/events";
import type { BatchReply } from "@/server/ingest/batch";
import { idKey } from "@/db/queries/ingest-kv-rows";
import { auth, events, ingestRouteHarness, MiB, NDJSON, TOKEN } from "./route-harness";

const { file, fresh, storedIds, post } = ingestRouteHarness();

describe("POST /api/ingest: authentication", () => {
  it.each<[string, Record<string, string>]>([
    ["no Authorization header", { "content-type": NDJSON }],
    ["a wrong token", { authorization: "Bearer sy_wrong_token_0123456789abcdefXY", "content-type": NDJSON }],
    ["the token with a suffix", { authorization: `Bearer ${TOKEN}x`, "content-type": NDJSON }],
    ["a token prefix", { authorization: `Bearer ${TOKEN.slice(0, 16)}`, "content-type": NDJSON }],
    ["Bearer without a token", { authorization: "Bearer", "content-type": NDJSON }],
    ["Basic auth", { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString("base64")}`, "content-type": NDJSON }],
    ["the bare token", { authorization: TOKEN, "content-type": NDJSON }],
  ])("%s → 401 and nothing stored", async (name, headers) => {
    const prefix = `auth-${name.replace(/\W/g, "")}`;
    const res = await post(ndjson(events(prefix, 3)), headers);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await res.json()).toEqual({ error: expect.stringContaining("token") });
    expect(storedIds(prefix)).toEqual([]);
  });

  it("accepts the scheme in any case", async () => {
    const res = await post(ndjson(events("auth-case", 1)), {
      authorization: `bearer ${TOKEN}`,
      "content-type": NDJSON,
    });
    expect(res.status).toBe(200);
  });

  it("checks the token without waiting for a batch that holds the write lock", async () => {
    expect((await post(ndjson(events("auth-used", 1)), auth())).status).toBe(200);
    const { ingestTokenAccepted } = await import("@/server/runtime");
    const writer = new Database(file());
    writer.exec("BEGIN IMMEDIATE");
    try {
      const t = performance.now();
      expect(ingestTokenAccepted(`Bearer ${TOKEN}`)).toBe(true);
      // The event loop's connection waits up to 250 ms for the write lock; a check must not take it at all.
      expect(performance.now() - t).toBeLessThan(200);
    } finally {
      writer.exec("COMMIT");
      writer.close();
    }
  });
});

describe("POST /api/ingest: refused requests store nothing", () => {
  it.each<[string, string | null, number]>([
    ["text/plain", "text/plain", 415],
    ["no Content-Type", null, 415],
    ["application/xml", "application/xml", 415],
  ])("%s (Content-Type %j) → %i", async (_name, type, status) => {
    const prefix = `type-${status}-${String(type).replace(/\W/g, "")}`;
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    if (type) headers["content-type"] = type;
    const res = await post(ndjson(events(prefix, 2)), headers);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ error: expect.stringContaining("Content-Type") });
    expect(storedIds(prefix)).toEqual([]);
  });

  it("invalid JSON as application/json → 400", async () => {
    const res = await post('[{"id":"bad-json-1","kind":"kv.cleared"', auth("application/json"));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: expect.any(String) });
    expect(storedIds("bad-json")).toEqual([]);
  });

  /** Valid events, the last padded with an ignored field so the body is `size` bytes. */
  function paddedBody(prefix: string, size: number): string {
    const head = ndjson(events(prefix, 3).slice(0, 2));
    const last = (pad: string) => JSON.stringify({ ...minimal["kv.cleared"]({ id: `${prefix}-2` }), pad }) + "\n";
    const body = head + last("x".repeat(size - Buffer.byteLength(head + last(""))));
    expect(Buffer.byteLength(body)).toBe(size);
    return body;
  }

  it("a body over 8 MiB with Content-Length → 413", async () => {
    const body = paddedBody("big-cl", 8 * MiB + 1);
    const res = await post(body, { ...auth(), "content-length": String(Buffer.byteLength(body)) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.stringContaining("8 MiB") });
    expect(storedIds("big-cl")).toEqual([]);
  });

  it("a body over 8 MiB streamed without Content-Length → 413", async () => {
    const bytes = new TextEncoder().encode(paddedBody("big-stream", 8 * MiB + 1));
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (offset >= bytes.length) return c.close();
        c.enqueue(bytes.subarray(offset, offset + 64 * 1024));
        offset += 64 * 1024;
      },
    });
    const res = await post(body, auth(), { duplex: "half" });
    expect(res.status).toBe(413);
    expect(storedIds("big-stream")).toEqual([]);
  });

  it("a body of exactly 8 MiB is accepted", async () => {
    const res = await post(paddedBody("exact-8mib", 8 * MiB), auth());
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 3, rejected: 0 });
    expect(storedIds("exact-8mib")).toHaveLength(3);
  });

  it.each([
    ["NDJSON", NDJSON, (e: Raw[]) => ndjson(e)],
    ["a JSON array", "application/json", (e: Raw[]) => JSON.stringify(e)],
  ])("10,001 events as %s → 413", async (name, type, encode) => {
    const prefix = `many-${name.replace(/\W/g, "")}`;
    const res = await post(encode(events(prefix, 10_001)), auth(type));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.stringContaining("10000") });
    expect(storedIds(prefix)).toEqual([]);
  });
});

describe("POST /api/ingest: accepted batches", () => {
  const batch: Raw[] = [
    full["worker.up"]({ id: "ok-up", worker_id: "w-http" }),
    stats("w-http", T0 + 1_000, 100, 40, { id: "ok-stats-1" }),
    stats("w-http", T0 + 2_000, 300, 90, { id: "ok-stats-2" }),
    full.request({ id: "ok-request" }),
    minimal.request({ id: "bad-request", cached_tokens: 5_000 }),
    full["kv.stored"]({ id: "ok-kv" }),
    minimal["kv.stored"]({ id: "bad-kv", block_hashes: [1] }),
    full.tool({ id: "ok-tool" }),
  ];

  it("answers 200 with a result per item, and the accepted rows are durable on disk", async () => {
    const body = ndjson(batch).replace("\n", "\n\n").concat("{nope\n");
    const res = await post(body, auth());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const reply = (await res.json()) as BatchReply;

    // durability: a separate connection opened right after the reply sees the accepted rows
    const seen = fresh((db) => ({
      request: db
        .prepare("SELECT request_id, input_tokens, cached_tokens, first_token_at FROM requests WHERE id = 'ok-request'")
        .get(),
      stats: db
        .prepare("SELECT id, prefix_query_tokens FROM worker_stats WHERE worker_id = 'w-http' ORDER BY ts")
        .all(),
      rollup: db
        .prepare("SELECT samples, prefix_query_delta, prefix_hit_delta FROM worker_stats_1m WHERE worker_id = 'w-http'")
        .get(),
      worker: db.prepare("SELECT role, up_at FROM workers WHERE worker_id = 'w-http'").get(),
      kv: db.prepare("SELECT block_hashes FROM kv_events WHERE id_key = ?").get(idKey("ok-kv")),
    }));
    expect(seen).toEqual({
      request: { request_id: "r1", input_tokens: 1000, cached_tokens: 800, first_token_at: T0 + 150 },
      stats: [
        { id: "ok-stats-1", prefix_query_tokens: "100" },
        { id: "ok-stats-2", prefix_query_tokens: "300" },
      ],
      rollup: { samples: 2, prefix_query_delta: 200, prefix_hit_delta: 50 },
      worker: { role: "decode", up_at: T0 },
      // stored as 8-byte big-endian u64 words
      kv: { block_hashes: Buffer.from("0000000000000001ffffffffffffffff", "hex") },
    });
    expect(storedIds("ok-")).toEqual(["ok-kv", "ok-request", "ok-stats-1", "ok-stats-2", "ok-tool", "ok-up"]);
    expect(storedIds("bad-")).toEqual([]);

    expect(reply).toMatchObject({ accepted: 6, duplicate: 0, rejected: 3 });
    expect(reply.items.map((i) => [i.index, i.line, i.id, i.status])).toEqual([
      [0, 1, "ok-up", "accepted"],
      [1, 3, "ok-stats-1", "accepted"],
      [2, 4, "ok-stats-2", "accepted"],
      [3, 5, "ok-request", "accepted"],
      [4, 6, "bad-request", "rejected"],
      [5, 7, "ok-kv", "accepted"],
      [6, 8, "bad-kv", "rejected"],
      [7, 9, "ok-tool", "accepted"],
      [8, 10, null, "rejected"],
    ]);
    expect(reply.items[4]!.error).toBe("line 6: cached_tokens: exceeds input_tokens");
    expect(reply.items[6]!.error).toMatch(/^line 8: block_hashes\.0: must be a decimal string/);
    expect(reply.items[8]!.error).toBe("line 10: not valid JSON");
  });

  it("re-sending the batch answers duplicates and changes nothing", async () => {
    const before = fresh((db) => db.prepare("SELECT * FROM worker_stats_1m WHERE worker_id = 'w-http'").all());
    const res = await post(JSON.stringify(batch), auth("application/json; charset=utf-8"));
    expect(res.status).toBe(200);
    const reply = (await res.json()) as BatchReply;
    expect(reply).toMatchObject({ accepted: 0, duplicate: 6, rejected: 2 });
    expect(reply.items.every((i) => !("line" in i))).toBe(true);
    expect(fresh((db) => db.prepare("SELECT * FROM worker_stats_1m WHERE worker_id = 'w-http'").all())).toEqual(before);
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

  it("an empty NDJSON body answers 200 with no items", async () => {
    const res = await post("", auth());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accepted: 0, duplicate: 0, rejected: 0, items: [] });
  });

  it("a malformed item never fails its batch (kind named like an Object.prototype member)", async () => {
    const res = await post(
      ndjson([minimal["kv.cleared"]({ id: "proto-ok" }), { id: "proto-bad", kind: "constructor", ts: T0 }]),
      auth(),
    );
    expect(res.status).toBe(200);
    expect(storedIds("proto-")).toEqual(["proto-ok"]);
  });

  it("a malformed item never fails its batch (non-numeric block hash)", async () => {
    const res = await post(
      ndjson([
        minimal["kv.cleared"]({ id: "hash-ok" }),
        minimal["kv.removed"]({ id: "hash-bad", block_hashes: ["12a"] }),
      ]),
      auth(),
    );
    expect(res.status).toBe(200);
    expect(storedIds("hash-")).toEqual(["hash-ok"]);
  });
});

// In the server, the worker pool and the route handlers are separate module copies (main.ts loads one, Next's bundle
// the other), so an error the pool rejects with is not an instance of the route's AppError class. Reproduce that:
// the pool below comes from a fresh module graph.
