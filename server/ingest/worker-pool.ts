import type { ResourceLimits, Worker } from "node:worker_threads";
import { KV_LOCATIONS_BYTES } from "../../db/sqlite/kv-lists";
import { AppError, type AppErrorCode } from "../errors";
import { ingestBusySignal } from "./busy-signal";
import { WriteGate } from "./write-gate";
import { setIngestRunner, type IngestOutcome } from "./runner";
import type { Sender } from "./sender";
import type { IngestTally } from "./tally";
import { leastBusy, noteRestart, Restarts, startThread, threadStoppedError } from "../threads";

// Ingest off the event loop: worker threads decode, validate and store request bodies on their own SQLite
// connections, so the dashboard keeps answering while batches are processed and one batch's validation
// overlaps another's storage. Replies are the JSON text of the BatchReply and its results by kind (the main thread
// keeps the metrics). A refusal travels as its AppError code and message and is rebuilt here with the same code.

type Reply = { id: number; reply?: string; tally?: IngestTally; error?: { code: AppErrorCode; message: string } };
type Pending = { resolve: (outcome: IngestOutcome) => void; reject: (err: Error) => void };

const CHECKPOINT_EVERY_MS = 1_000;

type Slot = { worker: Worker; label: string; inFlight: number; pending: Map<number, Pending>; down?: boolean };

/**
 * A fixed pool of ingest threads; requests go to the thread with the fewest in flight. A thread that stops (past its
 * heap limit, or crashed) is restarted with a log line and a /metrics count; the bodies it held are answered 503 with
 * Retry-After, never acknowledged (their transactions rolled back), so their senders send them again.
 */
export class IngestPool {
  private workers: Slot[] = [];
  /** Checkpoints the WAL off the ingest workers' write turns (they run with wal_autocheckpoint = 0). */
  private checkpointer!: Worker;
  private nextId = 1;
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
    private readonly limits?: ResourceLimits,
  ) {
    this.startCheckpointer();
    for (let i = 0; i < size; i++) this.workers.push(this.startWorker(`ingest-${i + 1}`));
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

  private startWorker(label: string): Slot {
    const worker = startThread(
      "ingest",
      label,
      { dbFile: this.dbFile, gate: this.gate, kvLocations: this.kvLocations },
      { limits: this.limits },
    );
    const slot: Slot = { worker, label, inFlight: 0, pending: new Map() };
    let failure: unknown = null;
    worker.on("message", (m: Reply) => this.settle(slot, m));
    worker.on("error", (err) => (failure = err));
    worker.on("exit", () => {
      if (this.closed) return;
      noteRestart("ingest", label, failure ?? new Error("exited"));
      // It may have died inside its write turn: the next turn forgets the KV locations it shared (write-gate.ts).
      WriteGate.writerDied(this.gate);
      this.fail(slot);
      // Until the new thread is up the slot takes no bodies: they go to the others, or are answered "try again".
      slot.down = true;
      this.restarts.schedule(label, () => {
        if (!this.closed) this.workers[this.workers.indexOf(slot)] = this.startWorker(label);
      });
    });
    worker.unref();
    return slot;
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
    const slot = leastBusy(this.workers);
    if (!slot) return Promise.reject(threadStoppedError());
    const id = this.nextId++;
    slot.inFlight++;
    // Published for the background jobs that yield to ingest (busy-signal.ts); settle and fail end it.
    ingestBusySignal().begin();
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      const text = typeof body === "string" ? body : owned(body);
      const transfer = typeof text === "string" ? [] : [text.buffer as ArrayBuffer];
      slot.worker.postMessage({ id, ticket: this.nextTicket++, text, contentType, sender }, transfer);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    setIngestRunner(undefined);
    await Promise.all([...this.workers.map((w) => w.worker.terminate()), this.checkpointer.terminate()]);
  }

  private settle(slot: Slot, m: Reply) {
    const p = slot.pending.get(m.id);
    if (!p) return;
    slot.inFlight--;
    slot.pending.delete(m.id);
    ingestBusySignal().end();
    if (m.reply !== undefined) p.resolve({ json: m.reply, tally: m.tally ?? {} });
    else p.reject(new AppError(m.error?.code ?? "INTERNAL", m.error?.message ?? "ingest failed"));
  }

  /**
   * A worker stopped: what it held is answered "try again" (its transactions rolled back). Later bodies whose write
   * turns come after the ones it held wait at most the write gate's 2 s for them (write-gate.ts), then go ahead.
   */
  private fail(slot: Slot) {
    for (const p of slot.pending.values()) {
      ingestBusySignal().end();
      p.reject(threadStoppedError());
    }
    slot.pending.clear();
    slot.inFlight = 0;
  }
}

/** Bytes that own their whole ArrayBuffer (so moving it moves nothing else, e.g. a pooled Buffer's slab), else a copy. */
function owned(bytes: Uint8Array): Uint8Array {
  const whole =
    bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole ? bytes : new Uint8Array(bytes);
}
