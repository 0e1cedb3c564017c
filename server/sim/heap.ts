// A binary min-heap of timed callbacks ordered by (time, insertion sequence): ties run in the
// order they were scheduled, which keeps the simulation deterministic.

type Entry = { t: number; seq: number; run: () => void };

export class EventQueue {
  private items: Entry[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  /** Time of the earliest entry, or Infinity when empty. */
  peekTime(): number {
    return this.items.length ? this.items[0]!.t : Infinity;
  }

  push(t: number, run: () => void): void {
    const entry = { t, seq: this.seq++, run };
    const items = this.items;
    let i = items.length;
    items.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = entry;
  }

  pop(): Entry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (!top || !last || items.length === 0) return top;
    let i = 0;
    const n = items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && before(items[r]!, items[l]!) ? r : l;
      if (!before(items[child]!, last)) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}
