import { describe, expect, it } from "vitest";
import { full, minimal, ndjson, stats, T0, type Raw } from "@/test/events";
import type { BatchReply } from "@/server/ingest/batch";
import type { EventKind } from "@/server/ingest/events";
import { auth, engineSkipped, events, MiB, NDJSON, TOKEN, type RouteHarness } from "./route-harness";

// The ingest route's cases written once and run on each engine (route.test.ts: SQLite, with what only SQLite shows;
// route.pg.test.ts: PostgreSQL): the same replies, item by item, and the same rows stored or not.

const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 1_000_003n));

/** A turn of session s1 from sender "sim" with its own ids. */
const turnOf = (prefix: string, n: number, o: Raw = {}) =>
  minimal.request({
    id: `${prefix}-ev-${n}`,
    request_id: `${prefix}-r${n}`,
    session_id: `${prefix}-s1`,
    trajectory_id: "main",
    source: "sim",
    arrived_at: T0 + n * 1_000,
    ts: T0 + n * 1_000,
    ...o,
  });

export function ingestRouteCases(h: RouteHarness): void {
  const { storedIds, rows, post } = h;
  const skip = engineSkipped(h.engine);

  describe.skipIf(skip)(`POST /api/ingest on ${h.engine}: authentication`, () => {
    it.each<[string, Record<string, string>]>([
      ["no Authorization header", { "content-type": NDJSON }],
      ["a wrong token", { authorization: "Bearer sy_wrong_token_0123456789abcdefXY", "content-type": NDJSON }],
      ["the token with a suffix", { authorization: `Bearer ${TOKEN}x`, "content-type": NDJSON }],
      ["a token prefix", { authorization: `Bearer ${TOKEN.slice(0, 16)}`, "content-type": NDJSON }],
      ["Bearer without a token", { authorization: "Bearer", "content-type": NDJSON }],
      [
        "Basic auth",
        { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString("base64")}`, "content-type": NDJSON },
      ],
      ["the bare token", { authorization: TOKEN, "content-type": NDJSON }],
    ])("%s → 401 and nothing stored", async (name, headers) => {
      const prefix = `auth-${name.replace(/\W/g, "")}`;
      const res = await post(ndjson(events(prefix, 3)), headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(await res.json()).toEqual({ error: expect.stringContaining("token") });
      expect(await storedIds(prefix)).toEqual([]);
    });

    it("accepts the scheme in any case", async () => {
      const res = await post(ndjson(events("auth-case", 1)), {
        authorization: `bearer ${TOKEN}`,
        "content-type": NDJSON,
      });
      expect(res.status).toBe(200);
    });

    it("accepts the scheme in any case", async () => {
      const res = await post(ndjson(events("auth-case", 1)), {
        authorization: `bearer ${TOKEN}`,
        "content-type": NDJSON,
      });
      expect(res.status).toBe(200);
    });
  });

  describe.skipIf(skip)(`POST /api/ingest on ${h.engine}: refused requests store nothing`, () => {
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
      expect(await storedIds(prefix)).toEqual([]);
    });

    it("invalid JSON as application/json → 400", async () => {
      const res = await post('[{"id":"bad-json-1","kind":"kv.cleared"', auth("application/json"));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: expect.any(String) });
      expect(await storedIds("bad-json")).toEqual([]);
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
      expect(await storedIds("big-cl")).toEqual([]);
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
      expect(await storedIds("big-stream")).toEqual([]);
    });

    it("a body of exactly 8 MiB is accepted", async () => {
      const res = await post(paddedBody("exact-8mib", 8 * MiB), auth());
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ accepted: 3, rejected: 0 });
      expect(await storedIds("exact-8mib")).toHaveLength(3);
    });

    it.each([
      ["NDJSON", NDJSON, (e: Raw[]) => ndjson(e)],
      ["a JSON array", "application/json", (e: Raw[]) => JSON.stringify(e)],
    ])("10,001 events as %s → 413", async (name, type, encode) => {
      const prefix = `many-${name.replace(/\W/g, "")}`;
      const res = await post(encode(events(prefix, 10_001)), auth(type));
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ error: expect.stringContaining("10000") });
      expect(await storedIds(prefix)).toEqual([]);
    });
  });

  describe.skipIf(skip)(`POST /api/ingest on ${h.engine}: accepted batches`, () => {
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

    it("answers 200 with a result per item, and stores exactly the accepted ones", async () => {
      const body = ndjson(batch).replace("\n", "\n\n").concat("{nope\n");
      const res = await post(body, auth());
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      const reply = (await res.json()) as BatchReply;
      expect(await storedIds("ok-")).toEqual(["ok-kv", "ok-request", "ok-stats-1", "ok-stats-2", "ok-tool", "ok-up"]);
      expect(await storedIds("bad-")).toEqual([]);
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

    it("re-sending the batch answers duplicates and stores nothing twice", async () => {
      const res = await post(JSON.stringify(batch), auth("application/json; charset=utf-8"));
      expect(res.status).toBe(200);
      const reply = (await res.json()) as BatchReply;
      expect(reply).toMatchObject({ accepted: 0, duplicate: 6, rejected: 2 });
      expect(reply.items.every((i) => !("line" in i))).toBe(true);
      expect(await storedIds("ok-")).toEqual(["ok-kv", "ok-request", "ok-stats-1", "ok-stats-2", "ok-tool", "ok-up"]);
    });

    it("the same event twice in one batch: accepted once, then a duplicate", async () => {
      const e = minimal.tool({ id: "twice-1" });
      const res = await post(ndjson([e, e]), auth());
      expect(((await res.json()) as BatchReply).items.map((i) => i.status)).toEqual(["accepted", "duplicate"]);
      expect(await storedIds("twice-")).toEqual(["twice-1"]);
    });

    it("prefix_of: a turn naming the previous batch's request is accepted; unknown, too long or of another session, refused alone", async () => {
      const first = await post(ndjson([turnOf("px", 1, { sequence_hashes: hashes(0, 10) })]), auth());
      expect(((await first.json()) as BatchReply).accepted).toBe(1);
      const res = await post(
        ndjson([
          turnOf("px", 2, { prefix_of: { request_id: "px-r1", blocks: 10 }, sequence_hashes: hashes(10, 2) }),
          turnOf("px", 3, { prefix_of: { request_id: "px-r9", blocks: 1 }, sequence_hashes: hashes(0, 1) }),
          turnOf("px", 4, { prefix_of: { request_id: "px-r1", blocks: 11 }, sequence_hashes: hashes(0, 1) }),
          turnOf("px", 5, {
            session_id: "another",
            prefix_of: { request_id: "px-r1", blocks: 1 },
            sequence_hashes: hashes(0, 1),
          }),
        ]),
        auth(),
      );
      const reply = (await res.json()) as BatchReply;
      expect(reply.items.map((i) => [i.id, i.status, i.code ?? null])).toEqual([
        ["px-ev-2", "accepted", null],
        ["px-ev-3", "rejected", "unknown_prefix"],
        ["px-ev-4", "rejected", "unknown_prefix"],
        ["px-ev-5", "rejected", "invalid_prefix"],
      ]);
      expect(reply.items[1]!.error).toMatch(/^line 2: /);
      expect(await storedIds("px-")).toEqual(["px-ev-1", "px-ev-2"]);
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
      expect(await storedIds("proto-")).toEqual(["proto-ok"]);
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
      expect(await storedIds("hash-")).toEqual(["hash-ok"]);
    });
  });

  describe.skipIf(skip)(`POST /api/ingest on ${h.engine}: the reply's size`, () => {
    // The probe's replay: 10,000 `{}` lines (30 KB) got a 957 KB reply, an error text per line.
    it("10,000 {} lines: the counts, the first 100 errors and errors_truncated, under 20 KB", async () => {
      const res = await post(Array<string>(10_000).fill("{}").join("\n"), auth());
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text.length).toBeLessThan(20_000);
      const reply = JSON.parse(text) as BatchReply;
      expect(reply).toMatchObject({ accepted: 0, duplicate: 0, rejected: 10_000, errors_truncated: 9_900 });
      expect(reply.items.map((i) => i.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(reply.items[0]).toEqual({
        index: 0,
        line: 1,
        id: null,
        status: "rejected",
        error: expect.stringMatching(/^line 1: /),
      });
    });

    it("lists every accepted item around the errors, and every unknown_prefix past the first 100 errors", async () => {
      const first = await post(ndjson([turnOf("rs", 1, { sequence_hashes: hashes(0, 4) })]), auth());
      expect(((await first.json()) as BatchReply).accepted).toBe(1);
      const junk = (n: number) => Array<Raw>(n).fill({});
      const unknown = (n: number) =>
        turnOf("rs", n, { prefix_of: { request_id: `rs-r${n + 100}`, blocks: 1 }, sequence_hashes: hashes(0, 1) });
      const body = [
        ...junk(90),
        minimal["kv.cleared"]({ id: "rs-ok-1" }),
        ...junk(30),
        unknown(2),
        turnOf("rs", 3, { prefix_of: { request_id: "rs-r1", blocks: 4 }, sequence_hashes: hashes(4, 1) }),
        unknown(4),
        ...junk(5),
        minimal["kv.cleared"]({ id: "rs-ok-2" }),
      ];
      const reply = (await (await post(ndjson(body), auth())).json()) as BatchReply;
      expect(reply).toMatchObject({ accepted: 3, duplicate: 0, rejected: 127, errors_truncated: 25 });
      expect(reply.items.filter((i) => i.status !== "rejected").map((i) => [i.index, i.id])).toEqual([
        [90, "rs-ok-1"],
        [122, "rs-ev-3"],
        [129, "rs-ok-2"],
      ]);
      expect(reply.items.filter((i) => i.status === "rejected" && i.error !== undefined)).toHaveLength(100);
      expect(reply.items.filter((i) => i.code === "unknown_prefix")).toEqual([
        { index: 121, line: 122, id: "rs-ev-2", status: "rejected", code: "unknown_prefix" },
        { index: 123, line: 124, id: "rs-ev-4", status: "rejected", code: "unknown_prefix" },
      ]);
      expect(await storedIds("rs-")).toEqual(["rs-ev-1", "rs-ev-3", "rs-ok-1", "rs-ok-2"]);
    });
  });

  describe.skipIf(skip)(`POST /api/ingest on ${h.engine}: what a duplicate is`, () => {
    const statuses = async (res: Response) => ((await res.json()) as BatchReply).items.map((i) => i.status);
    // Samples, decisions, tools, reasoning spans and KV events are known by id and ts together; the rest by id alone.
    it.each<[EventKind, "accepted" | "duplicate"]>([
      ["worker.stats", "accepted"],
      ["route.decision", "accepted"],
      ["tool", "accepted"],
      ["reasoning", "accepted"],
      ["kv.stored", "accepted"],
      ["kv.removed", "accepted"],
      ["kv.cleared", "accepted"],
      ["worker.up", "duplicate"],
      ["worker.down", "duplicate"],
      ["planner.decision", "duplicate"],
      ["policy.ack", "duplicate"],
      ["request", "duplicate"],
    ])("%s: the same id and ts again → duplicate; the same id at a new ts → %s", async (kind, moved) => {
      const id = `dupts-${kind.replace(/\W/g, "")}-x`;
      const e = minimal[kind]({ id, ts: T0 + 5_000 });
      expect(await statuses(await post(ndjson([e]), auth()))).toEqual(["accepted"]);
      expect(await statuses(await post(ndjson([e]), auth()))).toEqual(["duplicate"]);
      expect(await statuses(await post(ndjson([{ ...e, ts: T0 + 6_000 }]), auth()))).toEqual([moved]);
      expect(await storedIds(id)).toEqual(moved === "accepted" ? [id, id] : [id]);
    });

    it("within one batch: the same id at two times is two events, the same id and time twice is one", async () => {
      const e = minimal.tool({ id: "dupbatch-1", ts: T0 + 7_000 });
      const res = await post(ndjson([e, { ...e, ts: T0 + 8_000 }, e]), auth());
      expect(await statuses(res)).toEqual(["accepted", "accepted", "duplicate"]);
      expect(await storedIds("dupbatch-")).toEqual(["dupbatch-1", "dupbatch-1"]);
    });
  });

  describe.skipIf(skip)(`POST /api/ingest on ${h.engine}: the sender`, () => {
    const from = (source: string, dropped?: string) => ({
      ...auth(),
      "x-switchyard-source": source,
      ...(dropped === undefined ? {} : { "x-switchyard-dropped-events": dropped }),
    });
    const status = (id: string) =>
      rows(
        `SELECT kind, name, success_count AS successes, CAST(events_total AS INTEGER) AS total, last_events AS last
         FROM source_status WHERE id = ?`,
        id,
      );
    const dropped = (source: string) => rows("SELECT value FROM settings WHERE key = ?", `dropped_events:${source}`);

    it("shows each sender on the Sources page with the events it had accepted, batches with nothing new included", async () => {
      await post(ndjson(events("snd-a", 3)), from("snd-test"));
      await post(ndjson([...events("snd-a", 3), ...events("snd-b", 2)]), from("snd-test"));
      await post("", from("snd-test"));
      expect(await status("ingest:snd-test")).toEqual([
        { kind: "ingest", name: "snd-test (ingest API)", successes: 3, total: 5, last: 0 },
      ]);
      await post(ndjson(events("snd-c", 2)), auth());
      expect(await status("ingest:unknown")).toMatchObject([
        { kind: "ingest", name: "Ingest API (sender without X-Switchyard-Source)", last: 2 },
      ]);
    });

    it.each<[string, string[], string | null]>([
      ["keeps the largest running total reported", ["7", "5", "9", "8"], "9"],
      ["ignores a header that is not a count", ["-3", "x", "0"], null],
    ])("dropped-events report: %s", async (name, reports, kept) => {
      const source = `drop-${name.replace(/\W/g, "")}`.slice(0, 40);
      for (const [i, r] of reports.entries()) await post(ndjson(events(`${source}-${i}`, 1)), from(source, r));
      expect(await dropped(source)).toEqual(kept === null ? [] : [{ value: kept }]);
    });
  });
}
