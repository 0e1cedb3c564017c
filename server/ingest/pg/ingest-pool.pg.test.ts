import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgDb } from "../../../db/pg/client";
import type { BatchReply } from "../batch";
import { ingestBusySignal } from "../busy-signal";
import { ingestRunner } from "../runner";
import { AppError } from "../../errors";
import { full, minimal, ndjson, turn } from "../../../test/events";
import { freshPg, PG_TEST_URL } from "../../../test/pg";
import { PgIngestPool } from "./ingest-pool";
import { ingestBodyPg } from "./ingest-body";
import { pgUnavailableResponse } from "./unavailable";

// PostgreSQL's ingest thread (the dashboard's way in on PostgreSQL): it answers what ingesting inline answers, keeps
// arrival order (a small body naming a request of a large body posted just before it finds that request), publishes
// the bodies in flight on the dashboard's busy signal, and a refusal keeps its code. PostgreSQL lost mid-run is
// ingest-outage.pg.test.ts, through the route with and without this thread.

const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 1_000_003n));
const NDJSON = "application/x-ndjson";
const bytes = (s: string) => new TextEncoder().encode(s);

describe.skipIf(!PG_TEST_URL)("PgIngestPool", () => {
  let pg: PgDb;
  let url: string;
  let drop: () => Promise<void>;
  let pool: PgIngestPool;
  beforeAll(async () => {
    ({ pg, url, drop } = await freshPg());
    pool = new PgIngestPool(url, 1);
    pool.install();
  });
  afterAll(async () => {
    await pool?.close();
    await drop?.();
  });

  it("is the installed ingest runner until closed", () => {
    expect(ingestRunner()).toBeTypeOf("function");
  });

  it("keeps arrival order: each turn names the one in the body posted before it, each body counted busy", async () => {
    const replies: Promise<BatchReply>[] = [];
    for (let n = 1; n <= 6; n++) {
      const padding = Array.from({ length: n % 2 ? 3_000 : 0 }, (_, i) =>
        minimal["kv.cleared"]({ id: `pad-${n}-${i}` }),
      );
      const t = turn(n, {
        sequence_hashes: hashes(n * 10, 10),
        ...(n > 1 && { prefix_of: { request_id: `r${n - 1}`, blocks: (n - 1) * 10 } }),
      });
      replies.push(pool.run(bytes(ndjson([...padding, t])), NDJSON).then((r) => JSON.parse(r.json) as BatchReply));
    }
    // Every body is counted from the hand-over until its answer, in the dashboard's process, where attribution reads it.
    expect(ingestBusySignal().inFlight()).toBe(6);
    const done = await Promise.all(replies);
    expect(ingestBusySignal().inFlight()).toBe(0);
    expect(ingestBusySignal().busy()).toBe(true);
    expect(done.map((r) => r.items.at(-1)!.status)).toEqual(Array(6).fill("accepted"));
    const rows = await pg.$client`SELECT request_id AS r, seq_count AS n FROM requests ORDER BY arrived_at`;
    expect(rows.map((r) => [r.r, r.n])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [`r${n}`, n * 10]));
  });

  it("answers a mixed body exactly as ingesting inline does (items, statuses, codes, tally), and stores it once", async () => {
    const body = (p: string) =>
      ndjson([
        full.request({ id: `${p}-a`, request_id: `${p}-ra` }),
        minimal.request({ id: `${p}-b`, cached_tokens: 5_000 }),
        full["kv.stored"]({ id: `${p}-s` }),
        minimal.tool({ id: `${p}-t` }),
      ]) +
      "{nope\n\n" +
      ndjson([{ id: `${p}-c`, kind: "constructor", ts: 1 }]);
    const threaded = await pool.run(bytes(body("th")), NDJSON, { source: "bench", dropped: null });
    const inline = await ingestBodyPg(pg, body("in"), NDJSON, { source: "bench", dropped: null });
    const reply = JSON.parse(threaded.json) as BatchReply;
    // The same answer but for the ids, which differ by their prefix so that both bodies are stored.
    expect(reply).toEqual(JSON.parse(JSON.stringify(inline.reply).replaceAll('"in-', '"th-')));
    expect(threaded.tally).toEqual(inline.tally);
    expect(reply.accepted).toBe(3);
    const again = JSON.parse((await pool.run(bytes(body("th")), NDJSON)).json) as BatchReply;
    expect(again.accepted).toBe(0);
    expect(again.duplicate).toBe(3);
    const [row] = await pg.$client<{ n: number }[]>`SELECT count(*)::int AS n FROM tools WHERE id = 'th-t'`;
    expect(row?.n).toBe(1);
  });

  it.each<[string, string, string, string, number]>([
    ["invalid JSON as application/json", '[{"id":', "application/json", "BAD_REQUEST", 400],
    [
      "over 10,000 events",
      ndjson(Array.from({ length: 10_001 }, () => minimal["kv.cleared"]())),
      NDJSON,
      "PAYLOAD_TOO_LARGE",
      413,
    ],
  ])("%s: refused with the same code as inline, nothing stored", async (_name, body, type, code, status) => {
    const inline = await ingestBodyPg(pg, body, type).catch((e: unknown) => e);
    const err = await pool.run(bytes(body), type).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
    expect((err as AppError).status).toBe(status);
    expect((err as AppError).message).toBe((inline as AppError).message);
  });

  it("an unreachable server's refusal crosses the thread as 503 with the same message and Retry-After", async () => {
    const down = new PgIngestPool(url.replace(/:(\d+)\//, ":1/"), 1);
    try {
      const err = await down.run(bytes(ndjson([minimal.tool({ id: "down-t" })])), NDJSON).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("UNAVAILABLE");
      const res = pgUnavailableResponse(err)!;
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(((await res.json()) as { error: string }).error).toMatch(/PostgreSQL\) is unreachable/);
    } finally {
      await down.close();
      pool.install();
    }
  }, 30_000);
});
