import { Worker } from "node:worker_threads";
import { KV_LOCATIONS_BYTES } from "../../db/queries/kv-lists";
import { AppError, type AppErrorCode } from "../errors";
import { ingestBusySignal } from "./busy-signal";
import { setIngestRunner, type IngestOutcome } from "./runner";
import type { Sender } from "./sender";
import type { IngestTally } from "./tally";
import { log } from "../observability/logger";
import { threadFile } from "../threads";

// Ingest off the event loop: worker threads decode, validate and store request bodies on their own SQLite
// connections, so the dashboard keeps answering while batches are processed and one batch's validation
// overlaps another's storage. Replies are the JSON text of the BatchReply and its results by kind (the main thread
// keeps the metrics). A refusal travels as its AppError code and message and is rebuilt here with the same code.

type Reply = { id: number; reply?: string; tally?: IngestTally; error?: { code: AppErrorCode; message: string } };
type Pending = { resolve: (outcome: IngestOutcome) => void; reject: (err: Error) => void };

const CHECKPOINT_EVERY_MS = 1_000;
/**
 * A batch's parsed events (up to 8 MiB of JSON) are garbage once stored: a young generation that holds a few batches
 * (semi-spaces of 64 MiB instead of 16) lets them die there instead of being promoted and marked, ~15% less CPU per
 * event. Costs up to ~128 MiB of memory per busy worker.
 */
const YOUNG_GENERATION_MB = 192;
/** A fixed pool of ingest workers; requests go to the worker with the fewest in flight. */
export class IngestPool {
  private workers: { worker: Worker; inFlight: number }[] = [];
  /** Checkpoints the WAL off the ingest workers' write turns (they run with wal_autocheckpoint = 0). */
  private checkpointer: Worker;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  /** Write turns in arrival order (write-gate.ts); the workers count from 0. */
  private nextTicket = 0;

  constructor(dbFile: string, size: number) {
    this.checkpointer = new Worker(threadFile("checkpoint"), { workerData: { dbFile, everyMs: CHECKPOINT_EVERY_MS } });
    this.checkpointer.on("error", (err) => log().error({ err: err.message }, "ingest checkpoint thread failed"));
    this.checkpointer.unref();
    // The workers' write gate (write-gate.ts): one turn counter in memory they all share.
    const gate = new SharedArrayBuffer(4);
    // One KV location map for all workers: a list refers to what any of them stored (db/queries/kv-lists.ts).
    const kvLocations = new SharedArrayBuffer(KV_LOCATIONS_BYTES);
    for (let i = 0; i < size; i++) {
      const worker = new Worker(threadFile("ingest"), {
        workerData: { dbFile, gate, kvLocations },
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      });
      const slot = { worker, inFlight: 0 };
      slot.worker.on("message", (m: Reply) => this.settle(slot, m));
      slot.worker.on("error", (err) => this.fail(err));
      slot.worker.unref();
      this.workers.push(slot);
    }
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
    const slot = this.workers.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    const id = this.nextId++;
    slot.inFlight++;
    // Published for the background jobs that yield to ingest (busy-signal.ts); settle and fail end it.
    ingestBusySignal().begin();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const text = typeof body === "string" ? body : owned(body);
      const transfer = typeof text === "string" ? [] : [text.buffer as ArrayBuffer];
      slot.worker.postMessage({ id, ticket: this.nextTicket++, text, contentType, sender }, transfer);
    });
  }

  async close(): Promise<void> {
    setIngestRunner(undefined);
    await Promise.all([...this.workers.map((w) => w.worker.terminate()), this.checkpointer.terminate()]);
  }

  private settle(slot: { inFlight: number }, m: Reply) {
    slot.inFlight--;
    const p = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (!p) return;
    ingestBusySignal().end();
    if (m.reply !== undefined) p.resolve({ json: m.reply, tally: m.tally ?? {} });
    else p.reject(new AppError(m.error?.code ?? "INTERNAL", m.error?.message ?? "ingest failed"));
  }

  /** A worker crashed: fail what is in flight (the batches' transactions rolled back) and stop routing here. */
  private fail(err: Error) {
    log().error({ err: err.message }, "ingest worker failed");
    for (const p of this.pending.values()) {
      ingestBusySignal().end();
      p.reject(new AppError("INTERNAL", "ingest worker failed"));
    }
    this.pending.clear();
    setIngestRunner(undefined);
  }
}

/** Bytes that own their whole ArrayBuffer (so moving it moves nothing else, e.g. a pooled Buffer's slab), else a copy. */
function owned(bytes: Uint8Array): Uint8Array {
  const whole =
    bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole ? bytes : new Uint8Array(bytes);
}
