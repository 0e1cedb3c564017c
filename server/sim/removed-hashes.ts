import { toDecimal, writeDecimal } from "./hashing";
import type { LineOut } from "./json-lines";

// The hashes a pool removed since its last report, kept as their two unsigned 32-bit halves: a block
// evicted and recomputed many times over an hour would otherwise make a new decimal string at each
// removal. The kv.removed line writes the digits straight into bytes; a string is made only for a
// reader of the event's block_hashes (tests, the policy preview's collector).

let scratch = Buffer.allocUnsafe(1 << 16);

export class RemovedHashes {
  /** hi, lo of hash i at 2 i, 2 i + 1, for i < length (unsigned; off the JS heap, no number per half). */
  private halves: Uint32Array;
  private n: number;
  /** Hash strings that are not the decimal of their halves (names in tests), by position; null when there are none. */
  private names: (string | undefined)[] | null;

  /** An empty list, or `n` hashes whose halves are halves[0, 2 n) (taken over, not copied) with their names. */
  constructor(halves: Uint32Array = new Uint32Array(16), n = 0, names: (string | undefined)[] | null = null) {
    this.halves = halves;
    this.n = n;
    this.names = names;
  }

  get length(): number {
    return this.n;
  }

  /** Append a hash: its halves (unsigned), and its string when that is not their decimal (else null). */
  push(hi: number, lo: number, name: string | null): void {
    const n = this.n;
    if (name !== null) (this.names ??= [])[n] = name;
    if (2 * n + 2 > this.halves.length) {
      const grown = new Uint32Array(Math.max(16, 2 * this.halves.length));
      grown.set(this.halves);
      this.halves = grown;
    }
    this.halves[2 * n] = hi;
    this.halves[2 * n + 1] = lo;
    this.n = n + 1;
  }

  /** Hash i as a string. */
  at(i: number): string {
    const name = this.names === null ? undefined : this.names[i];
    return name ?? toDecimal(this.halves[2 * i]!, this.halves[2 * i + 1]!);
  }

  /** Hashes [from, to) as strings. */
  strings(from = 0, to = this.length): string[] {
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(this.at(i));
    return out;
  }

  /** Hashes [from, to) as a new list. */
  slice(from: number, to: number): RemovedHashes {
    let names: (string | undefined)[] | null = null;
    if (this.names !== null)
      for (let i = from; i < to; i++) if (this.names[i] !== undefined) (names ??= [])[i - from] = this.names[i];
    return new RemovedHashes(this.halves.slice(2 * from, 2 * to), to - from, names);
  }

  /** The JSON array items (no brackets) `"h0","h1",…` of every hash, as the join of their strings would read. */
  writeItems(out: LineOut): void {
    const n = this.length;
    if (n === 0) return;
    if (this.names !== null) {
      // Names are written as they are, as the joined strings were (the simulator's own hashes are digits).
      out.ascii(`"${this.strings().join('","')}"`);
      return;
    }
    const halves = this.halves;
    if (out.u64s !== undefined) {
      // The list's own halves, as the sink takes them (it copies them before this returns).
      out.u64s(halves, 0, n);
      return;
    }
    if (scratch.length < n * 23) scratch = Buffer.allocUnsafe(Math.max(n * 23, 2 * scratch.length));
    const bytes = scratch;
    let at = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0) bytes[at++] = 44;
      bytes[at++] = 34;
      at = writeDecimal(bytes, at, halves[2 * i]!, halves[2 * i + 1]!);
      bytes[at++] = 34;
    }
    out.bytes(bytes, 0, at);
  }
}
