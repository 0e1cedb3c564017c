// Writers on the dashboard's event loop (a policy publish, the reconciler, a form's save) wait for SQLite's write lock
// without blocking the loop: store.ts tries BEGIN IMMEDIATE again every few milliseconds. The ingest threads take the
// lock within a fraction of a millisecond of its release, one batch after another (write-gate.ts), and the attribution
// thread between them, so under steady ingest such a writer could lose every try until its deadline: CI saw a publish
// fail with "database is locked" that way. A waiting writer now says so in memory shared with those threads, and they
// hold back their next transaction while one waits, up to WRITE_INTENT_YIELD_MS each time, so the writer's next try
// finds the lock free. The bound keeps ingest going if the event loop is too busy to try for a while.

/** Bytes of the shared memory: the number of writers waiting (int32). */
export const WRITE_INTENT_BYTES = 4;
/** The longest a thread holds back one transaction for a waiting writer. */
export const WRITE_INTENT_YIELD_MS = 50;

export class WriteIntent {
  private readonly waiting: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(WRITE_INTENT_BYTES)) {
    if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < WRITE_INTENT_BYTES)
      throw new Error(`a write intent needs a SharedArrayBuffer of at least ${WRITE_INTENT_BYTES} bytes`);
    this.waiting = new Int32Array(buffer, 0, 1);
  }

  /** A writer starts waiting for the lock; call what this returns once it holds the lock or gave up (once is enough). */
  announce(): () => void {
    Atomics.add(this.waiting, 0, 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      Atomics.sub(this.waiting, 0, 1);
      Atomics.notify(this.waiting, 0);
    };
  }

  /** Writers waiting now. */
  writers(): number {
    return Atomics.load(this.waiting, 0);
  }

  /**
   * Block this thread while a writer waits, at most maxMs; returns the milliseconds waited. Worker threads only: on the
   * event loop it would hold up the very writer it waits for.
   */
  yieldTo(maxMs = WRITE_INTENT_YIELD_MS): number {
    const start = performance.now();
    for (let n = this.writers(); n > 0; n = this.writers()) {
      const left = start + maxMs - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.waiting, 0, n, left);
    }
    return performance.now() - start;
  }
}

const key = Symbol.for("switchyard.writeIntent");
type Holder = { [key]?: WriteIntent };

/**
 * The process's write intent, announced by the event loop's writers (one per process, shared by the server and the
 * bundled routes through globalThis). Pass `.buffer` to the threads that should yield to it (joinWriteIntent).
 */
export function writeIntent(): WriteIntent {
  const g = globalThis as Holder;
  return (g[key] ??= new WriteIntent());
}

/** The intent this thread yields to (joinWriteIntent); none on the event loop's thread. */
let joined: WriteIntent | null = null;

/** Make this worker thread yield to the writers announced in `buffer` (the main thread's writeIntent().buffer). */
export function joinWriteIntent(buffer: SharedArrayBuffer | undefined): void {
  joined = buffer ? new WriteIntent(buffer) : null;
}

/** Before a write transaction on a thread that joined an intent: hold back while a writer waits (bounded). */
export function yieldToWriters(maxMs = WRITE_INTENT_YIELD_MS): number {
  return joined ? joined.yieldTo(maxMs) : 0;
}
