import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgDb } from "../../../db/pg/client";
import type { BatchReply } from "../batch";
import { ingestBusySignal } from "../busy-signal";
import { minimal, ndjson, turn } from "../../../test/events";
import { freshPg, PG_TEST_URL } from "../../../test/pg";
import { PgDecodePool } from "./decode-pool";
import { ingestBodyPg } from "./ingest-body";

// With decode threads, bodies still reach PostgreSQL's store in arrival order: a small body naming a request of a
// large body posted just before it (which takes longer to decode) finds that request. And bodies in flight are
// published on the busy signal, as SQLite's ingest pool publishes them, for the attribution thread to yield to.

const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 1_000_003n));
const NDJSON = "application/x-ndjson";

describe.skipIf(!PG_TEST_URL)("PostgreSQL ingest with decode threads", () => {
  let pg: PgDb;
  let drop: () => Promise<void>;
  let pool: PgDecodePool;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
    pool = new PgDecodePool(2);
    pool.install();
  });
  afterAll(async () => {
    await pool?.close();
    await drop?.();
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
      replies.push(ingestBodyPg(pg, ndjson([...padding, t]), NDJSON).then((r) => r.reply));
    }
    // Every body is counted from the call until its answer, through decoding and storing.
    expect(ingestBusySignal().inFlight()).toBe(6);
    const done = await Promise.all(replies);
    expect(ingestBusySignal().inFlight()).toBe(0);
    expect(ingestBusySignal().busy()).toBe(true);
    expect(done.map((r) => r.items.at(-1)!.status)).toEqual(Array(6).fill("accepted"));
    const rows = await pg.$client`SELECT request_id AS r, seq_count AS n FROM requests ORDER BY arrived_at`;
    expect(rows.map((r) => [r.r, r.n])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [`r${n}`, n * 10]));
  });
});
