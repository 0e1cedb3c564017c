import type { ResourceLimits, Worker } from "node:worker_threads";
import { KV_LOCATIONS_BYTES } from "../../db/sqlite/kv-lists";
import { writeIntent } from "../../db/sqlite/write-intent";
import { ingestBusySignal } from "./busy-signal";
import { WriteGate } from "./write-gate";
import { setIngestRunner, type IngestOutcome } from "./runner";
import type { Sender } from "./sender";
import type { IngestTally } from "./tally";
import { noteRestart, Restarts, startThread } from "../threads";
import { ThreadPool, type PoolReply } from "../thread-pool";
import { sendBody } from "./send-body";

// Ingest off the event loop: worker threads decode, validate and store request bodies on their own SQLite
// connections, so the dashboard keeps answering while batches are processed and one batch's validation
// overlaps another's storage. Replies are the JSON text of the BatchReply and its results by kind (the main thread
// keeps the metrics). A refusal travels as its AppError code and message and is rebuilt here with the same code.

type Reply = PoolReply & { reply?: string; tally?: IngestTally };

const CHECKPOINT_EVERY_MS = 1_000;

/**
 * A fixed pool of ingest threads (server/thread-pool.ts): a body goes to the thread with the fewest in flight; the
 * bodies a stopped thread held are answered 503 with Retry-After, never acknowledged (their transactions rolled
 * back), so their senders send them again.
 */
export class IngestPool {
  private readonly pool: ThreadPool<IngestOutcome, Reply>;
  /** Checkpoints the WAL off the ingest workers' write turns (they run with wal_autocheckpoint = 0). */
  private checkpointer!: Worker;
  /** Write turns in arrival order (write-gate.ts); the workers count from 0. */
  private nextTicket = 0;
  private closed = false;
  private readonly restarts = new Restarts();
  /** The workers' write gate (write-gate.ts): a turn counter and a "writer died" flag in memory they all share. */
  private readonly gate = new SharedArrayBuffer(8);
  /** One KV location map for all workers: a list refers to what any of them stored (db/sqlite/kv-lists.ts). */
  private readonly kvLocations = new SharedArrayBuffer(KV_LOCATIONS_BYTES);

  constructor(
    private readonly dbFile: string,
    size: number,
    limits?: ResourceLimits,
  ) {
    this.startCheckpointer();
    this.pool = new ThreadPool<IngestOutcome, Reply>({
      kind: "ingest",
      size,
      start: (label) =>
        startThread(
          "ingest",
          label,
          // writeIntent: a writer on the event loop waiting for the lock goes before the next batch (write-intent.ts).
          { dbFile, gate: this.gate, kvLocations: this.kvLocations, writeIntent: writeIntent().buffer },
          { limits },
        ),
      result: (m) => (m.reply === undefined ? undefined : { json: m.reply, tally: m.tally ?? {} }),
      failed: "ingest failed",
      // It may have died inside its write turn: the next turn forgets the KV locations it shared (write-gate.ts).
      // Later bodies whose turns come after the ones it held wait at most the gate's 2 s for them, then go ahead.
      onExit: () => WriteGate.writerDied(this.gate),
      // Published for the background jobs that yield to ingest (busy-signal.ts), begun in sendBody.
      onEnd: () => ingestBusySignal().end(),
    });
  }

  private startCheckpointer() {
    const worker = startThread("checkpoint", "checkpoint", { dbFile: this.dbFile, everyMs: CHECKPOINT_EVERY_MS });
    worker.on("error", (err) => noteRestart("checkpoint", "checkpoint", err));
    worker.on("exit", () => {
      if (!this.closed) this.restarts.schedule("checkpoint", () => !this.closed && this.startCheckpointer());
    });
    worker.unref();
    this.checkpointer = worker;
  }

  /** Make this pool the process's ingest runner. */
  install(): void {
    setIngestRunner((body, contentType, sender) => this.run(body, contentType, sender));
  }

  /**
   * Ingest one body on the least busy worker. Bytes (UTF-8) are moved to the worker, which decodes them: the event
   * loop neither decodes a body of up to 8 MiB nor copies it into a message. `body` is unusable afterwards.
   */
  run(body: string | Uint8Array, contentType: string, sender?: Sender): Promise<IngestOutcome> {
    return sendBody(this.pool, body, contentType, sender, () => ({ ticket: this.nextTicket++ }));
  }

  async close(): Promise<void> {
    this.closed = true;
    setIngestRunner(undefined);
    await Promise.all([this.pool.close(), this.checkpointer.terminate()]);
  }
}
