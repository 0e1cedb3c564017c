import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import postgres from "postgres";
import type { BatchReply } from "../batch";
import { migratePg } from "../../../db/pg/client";
import { minimal, ndjson, T0, turn, type Raw } from "../../../test/events";
import { PG_TEST_URL } from "../../../test/pg";
import { pgBinDir, startThrowawayPg, type ThrowawayPg } from "../../../test/pg-server";
import { useTempServerEnv } from "../../../test/server-env";
import { PgIngestPool } from "./ingest-pool";

// PostgreSQL lost while ingest runs: a server of this file's own is shut down as a crash would and started again
// while a sender posts through the real route, ingesting inline and through the dashboard's PostgreSQL ingest thread.
// Every reply is 200 or 503 with Retry-After (never 500, never counts for a batch that was not stored), and ingest
// resumes by itself when the server is back, losing nothing it acknowledged and storing nothing twice.

const TOKEN = "sy_test_token_0123456789abcdefXY";
const BATCHES = 12;
const PER_BATCH = 40;
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" };

/** Batch b: tools and KV events, and a turn whose prefix_of names the previous batch's turn. */
function batchOf(b: number): Raw[] {
  const out: Raw[] = [];
  for (let i = 0; i < PER_BATCH - 2; i++)
    out.push(
      i % 2
        ? minimal.tool({ id: `o-${b}-${i}`, ts: T0 + b * 1_000 + i })
        : minimal["kv.cleared"]({ id: `o-${b}-${i}`, ts: T0 + b * 1_000 + i }),
    );
  const hashes = Array.from({ length: 4 }, (_, i) => String(b * 10 + i + 1));
  out.push(
    turn(b + 1, {
      id: `o-${b}-turn`,
      ...(b === 0 ? { sequence_hashes: hashes } : { prefix_of: { request_id: `r${b}`, blocks: b * 4 } }),
      ...(b === 0 ? {} : { sequence_hashes: hashes }),
    }),
  );
  out.push(minimal.tool({ id: `o-${b}-last` }));
  return out;
}

const tick = () => new Promise((r) => setTimeout(r, 50));

describe.skipIf(!PG_TEST_URL || !pgBinDir()).each([
  ["inline", false],
  ["through the ingest thread", true],
])("POST /api/ingest while PostgreSQL is lost and returns (%s)", (_how, threaded) => {
  let server: ThrowawayPg;
  let restore: () => Promise<void>;
  let POST: typeof import("../../../app/api/ingest/route").POST;
  let closePool: () => Promise<void>;
  let ingestThread: PgIngestPool | null = null;

  beforeAll(async () => {
    // Each run its own server, settings and engine: the route and the server's store are imported afresh.
    vi.resetModules();
    server = await startThrowawayPg();
    await migratePg(server.url);
    ({ restore } = await useTempServerEnv("switchyard-pg-outage-", TOKEN));
    process.env.SWITCHYARD_DATABASE_URL = server.url;
    ({ POST } = await import("../../../app/api/ingest/route"));
    const { serverEngine } = await import("../../runtime");
    closePool = async () => void (await serverEngine().pg?.$client.end({ timeout: 1 }));
    if (threaded) {
      ingestThread = new PgIngestPool(server.url, 1);
      ingestThread.install();
    }
  }, 60_000);

  afterAll(async () => {
    await ingestThread?.close();
    await closePool?.();
    delete process.env.SWITCHYARD_DATABASE_URL;
    await restore?.();
    server?.stop();
  });

  const post = (body: string) =>
    POST(new Request("http://localhost/api/ingest", { method: "POST", body, headers: auth }));

  it("answers 503 with Retry-After while it is gone, then resumes by itself with nothing acknowledged lost", async () => {
    const statuses: number[] = [];
    const refusals: { retryAfter: string | null; body: Record<string, unknown> }[] = [];
    const replies: BatchReply[] = [];
    let acknowledged = 0;
    const sender = (async () => {
      for (let b = 0; b < BATCHES; b++) {
        const body = ndjson(batchOf(b));
        for (;;) {
          const res = await post(body);
          statuses.push(res.status);
          if (res.status === 200) {
            replies.push((await res.json()) as BatchReply);
            acknowledged++;
            break;
          }
          refusals.push({ retryAfter: res.headers.get("retry-after"), body: await res.json() });
          if (res.status !== 503) return;
          await tick();
        }
      }
    })();
    const until = async (ok: () => boolean) => {
      while (!ok()) await tick();
    };
    await until(() => acknowledged >= 3);
    server.halt();
    await until(() => refusals.length >= 3 || statuses.some((s) => s !== 200 && s !== 503));
    const ackedWhileDown = acknowledged;
    server.resume();
    await sender;

    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    for (const r of refusals) {
      expect(r.retryAfter).toBe("5");
      expect(Object.keys(r.body)).toEqual(["error"]);
      expect(r.body.error).toMatch(/PostgreSQL\) is unreachable/);
    }
    expect(acknowledged).toBe(BATCHES);
    expect(ackedWhileDown).toBeLessThan(BATCHES);
    // Each batch was acknowledged whole: accepted, or (a batch stored before its reply was lost) duplicates.
    for (const r of replies) {
      expect(r.rejected).toBe(0);
      expect(r.accepted + r.duplicate).toBe(PER_BATCH);
    }
    const check = postgres(server.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await check<{ tools: number; kv: number; requests: number; distinct: number }[]>`
        SELECT (SELECT count(*)::int FROM tools) AS tools, (SELECT count(*)::int FROM kv_events) AS kv,
          (SELECT count(*)::int FROM requests) AS requests, (SELECT count(DISTINCT id)::int FROM tools) AS distinct`;
      expect(row).toEqual({ tools: BATCHES * 20, kv: BATCHES * 19, requests: BATCHES, distinct: BATCHES * 20 });
      const [last] = await check<
        { n: number }[]
      >`SELECT seq_count AS n FROM requests WHERE id = ${`o-${BATCHES - 1}-turn`}`;
      expect(last!.n).toBe(BATCHES * 4);
    } finally {
      await check.end({ timeout: 5 });
    }
  }, 120_000);
});
