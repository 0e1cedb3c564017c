// A binary min-heap of timed callbacks ordered by (time, insertion sequence): ties run in the
// order they were scheduled, which keeps the simulation deterministic. Times and sequence numbers
// sit in typed arrays beside the callbacks (no object per entry, no pointer chase per comparison).

type Entry = { t: number; seq: number; run: () => void };

export class EventQueue {
  private times = new Float64Array(1024);
  /** Insertion sequence of each entry (a double: a long run schedules more than 2^31 callbacks). */
  private seqs = new Float64Array(1024);
  private runs: (() => void)[] = [];
  private n = 0;
  private seq = 0;

  get size(): number {
    return this.n;
  }

  /** Time of the earliest entry, or Infinity when empty. */
  peekTime(): number {
    return this.n > 0 ? this.times[0]! : Infinity;
  }

  push(t: number, run: () => void): void {
    if (this.n === this.times.length) this.grow();
    const times = this.times;
    const seqs = this.seqs;
    const runs = this.runs;
    const seq = this.seq++;
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (!(t < pt || (t === pt && seq < seqs[parent]!))) break;
      times[i] = pt;
      seqs[i] = seqs[parent]!;
      runs[i] = runs[parent]!;
      i = parent;
    }
    times[i] = t;
    seqs[i] = seq;
    runs[i] = run;
  }

  /** Remove the earliest entry and return its callback (its time is what peekTime() returned); the queue must not be empty. */
  shift(): () => void {
    const times = this.times;
    const seqs = this.seqs;
    const runs = this.runs;
    const top = runs[0]!;
    const n = --this.n;
    const t = times[n]!;
    const seq = seqs[n]!;
    const run = runs[n]!;
    runs[n] = NOOP;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = l;
      if (r < n) {
        const rt = times[r]!;
        const lt = times[l]!;
        if (rt < lt || (rt === lt && seqs[r]! < seqs[l]!)) child = r;
      }
      const ct = times[child]!;
      if (!(ct < t || (ct === t && seqs[child]! < seq))) break;
      times[i] = ct;
      seqs[i] = seqs[child]!;
      runs[i] = runs[child]!;
      i = child;
    }
    times[i] = t;
    seqs[i] = seq;
    runs[i] = run;
    return top;
  }

  /** Remove and return the earliest entry (undefined when empty). */
  pop(): Entry | undefined {
    if (this.n === 0) return undefined;
    const t = this.times[0]!;
    const seq = this.seqs[0]!;
    return { t, seq, run: this.shift() };
  }

  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    times.set(this.times);
    this.times = times;
    const seqs = new Float64Array(this.seqs.length * 2);
    seqs.set(this.seqs);
    this.seqs = seqs;
  }
}

/** What a vacated callback slot holds (the callback itself is let go). */
function NOOP(): void {}
