// Whether ingest is busy, readable from any thread without a message: the ingest pool counts the bodies in flight
// and the time one last started or ended in shared memory. A background job (attribution) that should yield to
// ingest wraps the same buffer in its own thread (`new BusySignal(buffer)`, the buffer passed in workerData) and asks
// `busy()` between its transactions.

/** Bytes of a signal's shared memory: bodies in flight (int32, padded) and the last start or end (int64 Unix ms). */
export const BUSY_SIGNAL_BYTES = 16;
/** busy() stays true this long after the last body ended: a sender's next body usually follows within it. */
export const DEFAULT_QUIET_MS = 250;

export class BusySignal {
  private readonly count: Int32Array;
  private readonly last: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(BUSY_SIGNAL_BYTES)) {
    if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < BUSY_SIGNAL_BYTES)
      throw new Error(`a busy signal needs a SharedArrayBuffer of at least ${BUSY_SIGNAL_BYTES} bytes`);
    this.count = new Int32Array(buffer, 0, 1);
    this.last = new BigInt64Array(buffer, 8, 1);
  }

  /** A body was handed to ingest at `now` (Unix ms). */
  begin(now = Date.now()): void {
    Atomics.add(this.count, 0, 1);
    this.touch(now);
  }

  /** A body handed over finished (stored, refused or failed) at `now`. Never counts below zero. */
  end(now = Date.now()): void {
    for (let n = Atomics.load(this.count, 0); n > 0; n = Atomics.load(this.count, 0))
      if (Atomics.compareExchange(this.count, 0, n, n - 1) === n) break;
    this.touch(now);
  }

  /** Bodies in flight now. */
  inFlight(): number {
    return Atomics.load(this.count, 0);
  }

  /** Unix ms of the last body started or ended; null before the first. */
  lastActive(): number | null {
    const t = Number(Atomics.load(this.last, 0));
    return t === 0 ? null : t;
  }

  /** True while a body is in flight, or one started or ended less than quietMs ago. */
  busy(now = Date.now(), quietMs = DEFAULT_QUIET_MS): boolean {
    if (this.inFlight() > 0) return true;
    const t = this.lastActive();
    return t !== null && now - t < quietMs;
  }

  private touch(now: number): void {
    if (!Number.isSafeInteger(now) || now <= 0) return;
    // Later wins: a thread that read its clock earlier never moves the time back.
    const v = BigInt(now);
    for (let t = Atomics.load(this.last, 0); t < v; t = Atomics.load(this.last, 0))
      if (Atomics.compareExchange(this.last, 0, t, v) === t) break;
  }
}

const key = Symbol.for("switchyard.ingestBusySignal");
type Holder = { [key]?: BusySignal };

/**
 * The process's ingest busy signal (one per process, shared by the server and the bundled routes through
 * globalThis). Pass `.buffer` to a worker thread that needs to read it.
 */
export function ingestBusySignal(): BusySignal {
  const g = globalThis as Holder;
  return (g[key] ??= new BusySignal());
}
