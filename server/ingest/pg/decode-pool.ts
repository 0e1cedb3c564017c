import type { ResourceLimits, Worker } from "node:worker_threads";
import { AppError, type AppErrorCode } from "../../errors";
import { decodeForStore, setPgBodyDecoder, type DecodedBody } from "./decode";
import { leastBusy, noteRestart, Restarts, startThread, threadStoppedError } from "../../threads";

// PostgreSQL's ingest decodes bodies on worker threads: JSON parsing and validation cost about as much main-thread
// CPU as storing (bench:ingest's route line), and PostgreSQL's store itself is async I/O that needs no thread. A
// refusal travels as its AppError code and message and is rebuilt here with the same code.

type Reply = { id: number; body?: DecodedBody; error?: { code: AppErrorCode; message: string } };
type Pending = { resolve: (body: DecodedBody) => void; reject: (err: Error) => void };

type Slot = { worker: Worker; inFlight: number; pending: Map<number, Pending>; down?: boolean };

/**
 * A fixed pool of decode threads; a body goes to the thread with the fewest in flight. A thread that stops (past its
 * heap limit, or crashed) is restarted with a log line and a /metrics count; the bodies it held are answered 503 with
 * Retry-After (nothing of them was stored), so their senders send them again.
 */
export class PgDecodePool {
  private workers: Slot[] = [];
  private nextId = 1;
  private closed = false;
  private readonly restarts = new Restarts();

  constructor(
    size: number,
    private readonly limits?: ResourceLimits,
  ) {
    for (let i = 0; i < size; i++) this.workers.push(this.startWorker(`decode-${i + 1}`));
  }

  private startWorker(label: string): Slot {
    const worker = startThread("decode", label, {}, { limits: this.limits });
    const slot: Slot = { worker, inFlight: 0, pending: new Map() };
    let failure: unknown = null;
    worker.on("message", (m: Reply) => this.settle(slot, m));
    worker.on("error", (err) => (failure = err));
    worker.on("exit", () => {
      if (this.closed) return;
      noteRestart("decode", label, failure ?? new Error("exited"));
      for (const p of slot.pending.values()) p.reject(threadStoppedError());
      slot.pending.clear();
      slot.down = true;
      this.restarts.schedule(label, () => {
        if (!this.closed) this.workers[this.workers.indexOf(slot)] = this.startWorker(label);
      });
    });
    worker.unref();
    return slot;
  }

  /** Make this pool the process's body decoder for PostgreSQL's ingest. */
  install(): void {
    setPgBodyDecoder((text, contentType) => this.decode(text, contentType));
  }

  /** Decode one body on the least busy thread. */
  decode(text: string, contentType: string): Promise<DecodedBody> {
    if (this.workers.length === 0) return Promise.resolve().then(() => decodeForStore(text, contentType));
    const slot = leastBusy(this.workers);
    if (!slot) return Promise.reject(threadStoppedError());
    const id = this.nextId++;
    slot.inFlight++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, text, contentType });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    setPgBodyDecoder(undefined);
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  private settle(slot: Slot, m: Reply) {
    const p = slot.pending.get(m.id);
    if (!p) return;
    slot.inFlight--;
    slot.pending.delete(m.id);
    if (m.body) p.resolve(m.body);
    else p.reject(new AppError(m.error?.code ?? "INTERNAL", m.error?.message ?? "decoding failed"));
  }
}
