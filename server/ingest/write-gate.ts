// The ingest threads' write transactions queue here, on a lock in shared memory that wakes the next thread the moment
// the holder releases it, instead of in SQLite's busy handler (which polls, sleeping 1 to 100 ms between tries, and
// so leaves the write lock idle while a batch is ready). SQLite's own lock stays the guarantee: a thread that has
// waited maxWaitMs goes ahead and lets SQLite order the writes (a crashed holder never stalls ingest).

/** Serializes write transactions across threads that share `buffer` (a SharedArrayBuffer of at least 4 bytes). */
export class WriteGate {
  private readonly cell: Int32Array;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly maxWaitMs = 2_000,
  ) {
    this.cell = new Int32Array(buffer, 0, 1);
  }

  /** Run fn holding the gate (or, after maxWaitMs, without it). */
  run<T>(fn: () => T): T {
    const held = this.acquire();
    try {
      return fn();
    } finally {
      if (held) {
        Atomics.store(this.cell, 0, 0);
        Atomics.notify(this.cell, 0, 1);
      }
    }
  }

  private acquire(): boolean {
    const deadline = performance.now() + this.maxWaitMs;
    while (Atomics.compareExchange(this.cell, 0, 0, 1) !== 0) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.cell, 0, 1, left);
    }
    return true;
  }
}
