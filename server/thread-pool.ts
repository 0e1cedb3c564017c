import type { Worker } from "node:worker_threads";
import type { ThreadKind } from "./memory-budget";
import { AppError, type AppErrorCode } from "./errors";
import { leastBusy, noteRestart, Restarts, threadStoppedError } from "./threads";

// A fixed pool of request/reply worker threads, shared by SQLite's and PostgreSQL's ingest threads: a
// job goes to the live thread with the fewest in flight; a thread that stops (past its heap limit, or crashed) is
// restarted with a log line and a /metrics count, and the jobs it held are rejected with threadStoppedError (503 with
// Retry-After: nothing of them was stored, so their senders send them again). Until the new thread is up its slot
// takes no jobs: they go to the others, or are answered "try again".

/** What every reply carries: the job's id, and on failure the AppError to rebuild on this side. */
export type PoolReply = { id: number; error?: { code: AppErrorCode; message: string; details?: unknown } };

type Pending<R> = { resolve: (r: R) => void; reject: (err: Error) => void };
type Slot<R> = { worker: Worker; label: string; inFlight: number; pending: Map<number, Pending<R>>; down?: boolean };

export type PoolOptions<R, M extends PoolReply> = {
  kind: ThreadKind;
  size: number;
  /** Starts the thread for a slot (label: `<kind>-N`). */
  start: (label: string) => Worker;
  /** A successful reply's result (undefined: the reply carried none, so it is an error). */
  result: (reply: M) => R | undefined;
  /** The message of an error reply that named none. */
  failed: string;
  /** Called when a thread stopped, before its jobs are rejected. */
  onExit?: () => void;
  /** Called once per job when it ends, whichever way. */
  onEnd?: () => void;
};

export class ThreadPool<R, M extends PoolReply> {
  private slots: Slot<R>[] = [];
  private nextId = 1;
  private closed = false;
  private readonly restarts = new Restarts();

  constructor(private readonly o: PoolOptions<R, M>) {
    for (let i = 0; i < o.size; i++) this.slots.push(this.startSlot(`${o.kind}-${i + 1}`));
  }

  get size(): number {
    return this.slots.length;
  }

  private startSlot(label: string): Slot<R> {
    const worker = this.o.start(label);
    const slot: Slot<R> = { worker, label, inFlight: 0, pending: new Map() };
    let failure: unknown = null;
    worker.on("message", (m: M) => this.settle(slot, m));
    worker.on("error", (err) => (failure = err));
    worker.on("exit", () => {
      if (this.closed) return;
      noteRestart(this.o.kind, label, failure ?? new Error("exited"));
      this.o.onExit?.();
      for (const p of slot.pending.values()) {
        this.o.onEnd?.();
        p.reject(threadStoppedError());
      }
      slot.pending.clear();
      slot.inFlight = 0;
      slot.down = true;
      this.restarts.schedule(label, () => {
        if (!this.closed) this.slots[this.slots.indexOf(slot)] = this.startSlot(label);
      });
    });
    worker.unref();
    return slot;
  }

  /**
   * Send one job to the least busy live thread: `message(id)` builds what is posted (and what it transfers). Rejects
   * with threadStoppedError when no thread is up.
   */
  send(message: (id: number) => { value: unknown; transfer?: ArrayBuffer[] }): Promise<R> {
    const slot = leastBusy(this.slots);
    if (!slot) return Promise.reject(threadStoppedError());
    const id = this.nextId++;
    slot.inFlight++;
    return new Promise<R>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      const { value, transfer } = message(id);
      slot.worker.postMessage(value, transfer ?? []);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private settle(slot: Slot<R>, m: M) {
    const p = slot.pending.get(m.id);
    if (!p) return;
    slot.inFlight--;
    slot.pending.delete(m.id);
    this.o.onEnd?.();
    const r = m.error ? undefined : this.o.result(m);
    if (r !== undefined) p.resolve(r);
    else p.reject(new AppError(m.error?.code ?? "INTERNAL", m.error?.message ?? this.o.failed, m.error?.details));
  }
}

/**
 * A request body as posted to a thread: its text, or its bytes (UTF-8) moved with their buffer, unusable here
 * afterwards. The bytes are moved as they are when they own their whole ArrayBuffer (so moving it moves nothing
 * else, e.g. a pooled Buffer's slab), else copied first.
 */
export function bodyForThread(body: string | Uint8Array): { text: string | Uint8Array; transfer: ArrayBuffer[] } {
  if (typeof body === "string") return { text: body, transfer: [] };
  const whole =
    body.buffer instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  const bytes = whole ? body : new Uint8Array(body);
  return { text: bytes, transfer: [bytes.buffer as ArrayBuffer] };
}
