// The ingest threads' write transactions take turns here, in the order their bodies arrived (a ticket the pool hands
// out per body), on a counter in shared memory that wakes the next thread the moment the previous batch committed.
// So a sender that posts several bodies at once sees them stored in the order it sent them (a compact request whose
// prefix is in the body before never finds it missing), and no thread polls in SQLite's busy handler (which sleeps
// 1 to 100 ms between tries, leaving the write lock idle while a batch is ready). SQLite's own lock stays the
// guarantee: a thread that has waited maxWaitMs for its turn goes ahead (a crashed thread never stalls ingest).

/** Turns for write transactions across threads that share `buffer` (a SharedArrayBuffer of at least 4 bytes). */
export class WriteGate {
  private readonly serving: Int32Array;
  /** Set when a writer died (a second word of the buffer, when it has 8 bytes); taken by the next turn. */
  private readonly died: Int32Array | null;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly maxWaitMs = 2_000,
  ) {
    this.serving = new Int32Array(buffer, 0, 1);
    this.died = buffer.byteLength >= 8 ? new Int32Array(buffer, 4, 1) : null;
  }

  /**
   * Mark that a writer died, maybe inside its turn (the pool calls it when a thread stops): what it put in memory the
   * writers share for a transaction that then rolled back must be forgotten by the next turn (takeWriterDied).
   */
  static writerDied(buffer: SharedArrayBuffer): void {
    if (buffer.byteLength >= 8) Atomics.store(new Int32Array(buffer, 4, 1), 0, 1);
  }

  /** True once after writerDied (call it inside a turn, so only one writer acts on it). */
  takeWriterDied(): boolean {
    return this.died !== null && Atomics.exchange(this.died, 0, 0) === 1;
  }

  /**
   * Run fn in turn `ticket` (0, 1, 2, … as handed out; every ticket must be run once, also when it has nothing to
   * write, or later tickets wait maxWaitMs). Returns fn's value; the next turn starts when fn returns or throws.
   */
  run<T>(ticket: number, fn: () => T): T {
    this.await(ticket);
    try {
      return fn();
    } finally {
      this.pass(ticket);
    }
  }

  private await(ticket: number): void {
    const deadline = performance.now() + this.maxWaitMs;
    for (let now = Atomics.load(this.serving, 0); now < ticket; now = Atomics.load(this.serving, 0)) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      Atomics.wait(this.serving, 0, now, left);
    }
  }

  /** The turn after `ticket` (never back: a late thread that went ahead leaves the counter where it is). */
  private pass(ticket: number): void {
    for (let now = Atomics.load(this.serving, 0); now < ticket + 1; now = Atomics.load(this.serving, 0)) {
      if (Atomics.compareExchange(this.serving, 0, now, ticket + 1) === now) break;
    }
    Atomics.notify(this.serving, 0);
  }
}
