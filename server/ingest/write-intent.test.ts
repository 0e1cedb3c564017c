import { describe, expect, it } from "vitest";
import { openDb } from "../../db/sqlite/client";
import { sqliteStore } from "../../db/store/store";
import { writeIntent } from "../../db/sqlite/write-intent";
import { ndjson, stats, T0 } from "../../test/events";
import { useIngestPool } from "../../test/ingest-pool";

// A write on the dashboard's event loop (store.tx: a policy publish) against ingest threads that store one batch after
// another: the threads hold back while it waits (db/sqlite/write-intent.ts), so it gets the lock at the next commit
// instead of losing it to the next batch, again and again.

const NDJSON = "application/x-ndjson";
const BATCH = 300;
const temp = useIngestPool("switchyard-intent-");

describe("a transaction on the event loop while ingest threads store batches back to back", () => {
  it("takes the lock after a batch or two, not after the flood", async () => {
    // The flood: four bodies in flight at all times, so a thread always has its next batch ready at a commit.
    let committed = 0;
    let stop = false;
    let n = 0;
    const sender = async () => {
      while (!stop) {
        const k = n++;
        const body = ndjson(
          Array.from({ length: BATCH }, (_, i) =>
            stats(`f${k % 8}`, T0 + k * 300_000 + i * 1000, i, i, { id: `f${k}-${i}` }),
          ),
        );
        await temp.pool.run(body, NDJSON);
        committed++;
      }
    };
    const senders = [sender(), sender(), sender(), sender()];
    const db = openDb(temp.file, 250);
    db.$client.exec("CREATE TABLE IF NOT EXISTS probe (x INTEGER)");
    const store = sqliteStore(db);
    const during: number[] = [];
    try {
      while (committed < 20) await new Promise((r) => setTimeout(r, 10));
      // Batches committed, read from the database (each body is BATCH rows; a reply reaches this thread later).
      const batches = () => (db.$client.prepare("SELECT count(*) FROM worker_stats").pluck().get() as number) / BATCH;
      for (let i = 0; i < 15; i++) {
        const before = batches();
        await store.tx(async () => {
          during.push(batches() - before);
          db.$client.prepare("INSERT INTO probe VALUES (?)").run(i);
        });
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      stop = true;
      await Promise.all(senders);
      db.$client.close();
    }
    console.log(`batches committed while each transaction waited: ${during.join(" ")}; flood ${committed} batches`);
    expect(during).toHaveLength(15);
    // The batch storing when it began to wait, and one more for each 50 ms its retries were late (a slow machine).
    // Without the threads holding back, single waits here lasted 12 to 82 batches.
    expect(Math.max(...during)).toBeLessThanOrEqual(4);
    expect(writeIntent().writers()).toBe(0);
  });
});
