// The router's and planner's view of a worker's prefill load: uncached prompt tokens queued or in
// prefill, and their time average between planner samples (token·ms accumulated as time passes).

export class PrefillLoad {
  /** Uncached prompt tokens queued or in prefill. */
  pending = 0;
  private area = 0;
  private since = 0;

  /** Add (or with a negative count, remove) prefill work at `now`. */
  add(tokens: number, now: number): void {
    this.area += this.pending * (now - this.since);
    this.since = now;
    this.pending += tokens;
  }

  /** Time-averaged pending tokens over [start, now) (the current value when the span is empty); restarts the average. */
  takeMean(start: number, now: number): number {
    this.add(0, now);
    const mean = now > start ? this.area / (now - start) : this.pending;
    this.area = 0;
    return mean;
  }
}
