import type { ResourceLimits } from "node:worker_threads";
import { ingestBusySignal } from "../busy-signal";
import { setIngestRunner, type IngestOutcome } from "../runner";
import type { Sender } from "../sender";
import type { IngestTally } from "../tally";
import { startThread } from "../../threads";
import { ThreadPool, type PoolReply } from "../../thread-pool";
import { sendBody } from "../send-body";

// PostgreSQL's ingest off the event loop: a thread decodes, validates and stores each request body on its own
// connections (server/ingest/pg/ingest-worker.ts), as SQLite's ingest threads do. The event loop then only answers
// HTTP: with the store's work on it (building rows, the driver's messages, their garbage) it used 2.6-3.0 of the
// dashboard's 6.8-7.2 CPU s over bench:storage's 20 minutes on PostgreSQL, 0.7-0.9 since (docs/benchmarks.md). A
// refusal travels as its AppError code, message and details and is rebuilt here (an unreachable server's keeps its
// Retry-After).

type Reply = PoolReply & { reply?: string; tally?: IngestTally };

/**
 * A fixed pool of PostgreSQL ingest threads (server/thread-pool.ts): a body goes to the thread with the fewest in
 * flight; the bodies a stopped thread held are answered 503 with Retry-After (their transactions rolled back). Each
 * thread stores its bodies in the order they came; with more than one, a body naming a request that another thread
 * is still storing is answered unknown_prefix and sent again in full, as from two dashboards.
 */
export class PgIngestPool {
  private readonly pool: ThreadPool<IngestOutcome, Reply>;

  constructor(databaseUrl: string, size: number, limits?: ResourceLimits) {
    this.pool = new ThreadPool<IngestOutcome, Reply>({
      kind: "pg-ingest",
      size,
      start: (label) => startThread("pg-ingest", label, { databaseUrl }, { limits }),
      result: (m) => (m.reply === undefined ? undefined : { json: m.reply, tally: m.tally ?? {} }),
      failed: "ingest failed",
      // Published for the background jobs that yield to ingest (busy-signal.ts), begun in sendBody.
      onEnd: () => ingestBusySignal().end(),
    });
  }

  /** Make this pool the process's ingest runner. */
  install(): void {
    setIngestRunner((body, contentType, sender) => this.run(body, contentType, sender));
  }

  /** Ingest one body on the least busy thread; bytes (UTF-8) are moved there, unusable here afterwards. */
  run(body: string | Uint8Array, contentType: string, sender?: Sender): Promise<IngestOutcome> {
    return sendBody(this.pool, body, contentType, sender);
  }

  async close(): Promise<void> {
    setIngestRunner(undefined);
    await this.pool.close();
  }
}
