// A hash list stored as runs of another list (its origin) interleaved with the hashes kept literally: a session's
// first turn repeats, at some offset, the tool definitions and system prompt another session's first turn holds.
// Program: varints, repeated [literal count][run count][origin position of the run's first hash]; a run count of 0
// ends it after a last literal count. Hashes are 8-byte words (codecs/chains.ts). Pure; no I/O.

import { HASH_BYTES } from "./chains";

/** Shortest run stored as a reference (a shorter one costs about what its hashes cost). */
export const MIN_RUN = 4;

export function putVarint(out: number[], v: number): void {
  while (v >= 128) {
    out.push((v % 128) + 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** A varint reader over `b` from offset 0; throws when a number runs past the end. */
export function varintReader(b: Uint8Array, what: string): { next: () => number; done: () => boolean } {
  let o = 0;
  return {
    next() {
      let v = 0;
      let scale = 1;
      for (;;) {
        const byte = b[o++];
        if (byte === undefined) throw new Error(`${what} ends inside a number`);
        v += (byte & 127) * scale;
        if (byte < 128) return v;
        scale *= 128;
      }
    },
    done: () => o >= b.length,
  };
}

const sameWord = (x: Buffer, a: number, y: Buffer, b: number) =>
  b >= 0 &&
  (b + 1) * HASH_BYTES <= y.byteLength &&
  x.readUInt32BE(a * HASH_BYTES) === y.readUInt32BE(b * HASH_BYTES) &&
  x.readUInt32BE(a * HASH_BYTES + 4) === y.readUInt32BE(b * HASH_BYTES + 4);

/**
 * Encode `list` against `origin`: `posOf(i)` is where hash i may sit in the origin (-1: not there); from such a
 * position the run is extended by comparing words, and runs of at least MIN_RUN become references. `refs` is null
 * when nothing was referenced (then `literal` is the list itself).
 */
export function encodeRuns(
  list: Buffer,
  origin: Buffer,
  posOf: (i: number) => number,
): { literal: Buffer; refs: Buffer | null } {
  const n = list.byteLength / HASH_BYTES;
  const prog: number[] = [];
  const parts: Buffer[] = [];
  let lit = 0;
  let litFrom = 0;
  let i = 0;
  while (i < n) {
    const p = posOf(i);
    let run = 0;
    while (p >= 0 && i + run < n && sameWord(list, i + run, origin, p + run)) run++;
    if (run < MIN_RUN) {
      lit++;
      i++;
      continue;
    }
    if (lit > 0) parts.push(list.subarray(litFrom * HASH_BYTES, (litFrom + lit) * HASH_BYTES));
    putVarint(prog, lit);
    putVarint(prog, run);
    putVarint(prog, p);
    i += run;
    lit = 0;
    litFrom = i;
  }
  if (prog.length === 0) return { literal: list, refs: null };
  if (lit > 0) parts.push(list.subarray(litFrom * HASH_BYTES, (litFrom + lit) * HASH_BYTES));
  putVarint(prog, lit);
  putVarint(prog, 0);
  return { literal: Buffer.concat(parts), refs: Buffer.from(prog) };
}

/** The full list back from its literal hashes, its program and the origin's full list. Throws on a bad program. */
export function decodeRuns(literal: Buffer, refs: Uint8Array, origin: Buffer): Buffer {
  const r = varintReader(refs, "hash run program");
  const parts: Buffer[] = [];
  let used = 0;
  while (!r.done()) {
    const lit = r.next();
    const run = r.next();
    if ((used + lit) * HASH_BYTES > literal.byteLength)
      throw new Error("hash run program names more literal hashes than it holds");
    if (lit > 0) parts.push(literal.subarray(used * HASH_BYTES, (used + lit) * HASH_BYTES));
    used += lit;
    if (run === 0) continue;
    const p = r.next();
    if ((p + run) * HASH_BYTES > origin.byteLength) throw new Error("hash run program reads past its origin's list");
    parts.push(origin.subarray(p * HASH_BYTES, (p + run) * HASH_BYTES));
  }
  if (used * HASH_BYTES !== literal.byteLength) throw new Error("hash run program skips literal hashes it holds");
  return Buffer.concat(parts);
}
