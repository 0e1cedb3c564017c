import { Worker } from "node:worker_threads";
import { AppError, type AppErrorCode } from "../errors";
import { log } from "../observability/logger";
import { decodeForStore, setPgBodyDecoder, type DecodedBody } from "./decode";
import { threadFile } from "../threads";

// PostgreSQL's ingest decodes bodies on worker threads: JSON parsing and validation cost about as much main-thread
// CPU as storing (bench:ingest's route line), and PostgreSQL's store itself is async I/O that needs no thread. A
// refusal travels as its AppError code and message and is rebuilt here with the same code.

type Reply = { id: number; body?: DecodedBody; error?: { code: AppErrorCode; message: string } };
type Pending = { resolve: (body: DecodedBody) => void; reject: (err: Error) => void };


/** A fixed pool of decode threads; a body goes to the thread with the fewest in flight. */
export class PgDecodePool {
  private workers: { worker: Worker; inFlight: number }[] = [];
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private failed = false;

  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const slot = { worker: new Worker(threadFile("decode")), inFlight: 0 };
      slot.worker.on("message", (m: Reply) => this.settle(slot, m));
      slot.worker.on("error", (err) => this.fail(err));
      slot.worker.unref();
      this.workers.push(slot);
    }
  }

  /** Make this pool the process's body decoder for PostgreSQL's ingest. */
  install(): void {
    setPgBodyDecoder((text, contentType) => this.decode(text, contentType));
  }

  /** Decode one body on the least busy thread (inline once a thread has failed). */
  decode(text: string, contentType: string): Promise<DecodedBody> {
    if (this.failed || this.workers.length === 0)
      return Promise.resolve().then(() => decodeForStore(text, contentType));
    const slot = this.workers.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    const id = this.nextId++;
    slot.inFlight++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, text, contentType });
    });
  }

  async close(): Promise<void> {
    setPgBodyDecoder(undefined);
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  private settle(slot: { inFlight: number }, m: Reply) {
    slot.inFlight--;
    const p = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (!p) return;
    if (m.body) p.resolve(m.body);
    else p.reject(new AppError(m.error?.code ?? "INTERNAL", m.error?.message ?? "decoding failed"));
  }

  /** A thread crashed: fail what is in flight (nothing of it was stored) and decode inline from now on. */
  private fail(err: Error) {
    log().error({ err: err.message }, "PostgreSQL ingest decode thread failed");
    for (const p of this.pending.values()) p.reject(new AppError("INTERNAL", "ingest decode thread failed"));
    this.pending.clear();
    this.failed = true;
  }
}
