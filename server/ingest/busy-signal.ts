// "Ingest keeps priority": a counter in shared memory of the bodies the ingest pool has in flight, which background
// threads (the attribution job) read to pause between their transactions while ingest is busy. A reader waiting on it
// is woken the moment the last body in flight finished.

export const BUSY_SIGNAL_BYTES = 4;

/** The signal over `buffer` (a SharedArrayBuffer of at least BUSY_SIGNAL_BYTES), shared by the pool and readers. */
export class BusySignal {
  private readonly a: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(BUSY_SIGNAL_BYTES)) {
    if (buffer.byteLength < BUSY_SIGNAL_BYTES) throw new RangeError(`busy signal needs ${BUSY_SIGNAL_BYTES} bytes`);
    this.a = new Int32Array(buffer, 0, 1);
  }

  /** Ingest: a body started. */
  started(): void {
    Atomics.add(this.a, 0, 1);
  }

  /** Ingest: a body finished (stored, refused or failed); wakes readers when none is left in flight. */
  finished(): void {
    if (Atomics.sub(this.a, 0, 1) <= 1) {
      // Never below 0 (a finish without its start), so the next start reads busy again.
      if (Atomics.load(this.a, 0) < 0) Atomics.store(this.a, 0, 0);
      Atomics.notify(this.a, 0);
    }
  }

  /** Bodies in flight now. */
  inFlight(): number {
    return Math.max(0, Atomics.load(this.a, 0));
  }

  /**
   * Reader: sleep while a body is in flight, at most `maxMs` (background work still moves when ingest never rests),
   * waking when none is left. Returns the ms slept (0 when ingest was idle). Blocks the calling thread: worker threads
   * only, never the dashboard's main thread.
   */
  pause(maxMs: number): number {
    if (this.inFlight() === 0) return 0;
    const t0 = performance.now();
    for (let left = maxMs; left > 0; left = maxMs - (performance.now() - t0)) {
      const n = Atomics.load(this.a, 0);
      if (n <= 0) break;
      Atomics.wait(this.a, 0, n, left);
    }
    return performance.now() - t0;
  }
}
