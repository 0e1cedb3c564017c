// A KV event's block list as stored: the hashes it holds literally (8-byte big-endian u64 words, as chain-codec) and,
// when some runs of it repeat hashes an earlier KV event holds literally, a program of varints that interleaves the
// literal hashes with references (origin kv_events rowid, position in the origin's literal hashes, count, direction).
// Pure; no I/O.

import { HASH_BYTES } from "./chain-codec";

/** Where an earlier event holds a hash literally: its kv_events rowid and the index among its literal hashes. */
export type Location = { rowid: number; pos: number };

/** Shortest run stored as a reference (a shorter one costs about what its hashes cost). */
export const MIN_REF_RUN = 4;

function putVarint(out: number[], v: number) {
  while (v >= 128) {
    out.push((v % 128) + 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** Low 16 bits of the hash at word `i`: a check that a referenced origin still holds what it held. */
const check = (b: Buffer, i: number) => b.readUInt16BE(i * HASH_BYTES + 6);

export type EncodedList = {
  /** The hashes kept literally, in list order. */
  literal: Buffer;
  /** The program (null: every hash is literal, `literal` is the whole list). */
  refs: Buffer | null;
  /** Index in the list of each literal hash (literal word k is list entry literalAt[k]). */
  literalAt: number[];
};

/** True when words [i, i + run) of `list` are words pos, pos ± 1, … of `src` (descending when `down`). */
function sameRun(list: Buffer, i: number, src: Buffer, pos: number, run: number, down: boolean): boolean {
  const first = down ? pos - run + 1 : pos;
  if (first < 0 || (first + run) * HASH_BYTES > src.byteLength) return false;
  if (!down)
    return list.compare(src, pos * HASH_BYTES, (pos + run) * HASH_BYTES, i * HASH_BYTES, (i + run) * HASH_BYTES) === 0;
  for (let k = 0; k < run; k++)
    if (
      list.compare(
        src,
        (pos - k) * HASH_BYTES,
        (pos - k + 1) * HASH_BYTES,
        (i + k) * HASH_BYTES,
        (i + k + 1) * HASH_BYTES,
      ) !== 0
    )
      return false;
  return true;
}

/**
 * Encode a list (8-byte words) given where earlier events may hold its hashes (`locate(i)`: null when nowhere known)
 * and those events' literal hashes (`origin(rowid)`, null when gone). Runs of at least MIN_REF_RUN hashes at
 * consecutive positions of one origin (ascending, or descending as evictions report a chain leaf first) that the
 * origin really holds become references; the rest stays literal. Program: repeated [literal count]
 * [2 × reference count + (1 when descending)][origin rowid, position of the run's first hash, check (count > 0)].
 */
export function encodeBlockList(
  list: Buffer,
  locate: (i: number) => Location | null,
  origin: (rowid: number) => Buffer | null,
): EncodedList {
  const n = list.byteLength / HASH_BYTES;
  const at: (Location | null)[] = new Array(n);
  for (let i = 0; i < n; i++) at[i] = locate(i);
  const prog: number[] = [];
  const literalAt: number[] = [];
  let lit = 0;
  let i = 0;
  while (i < n) {
    const a = at[i];
    let run = 1;
    let down = false;
    if (a) {
      const b = at[i + 1];
      down = b?.rowid === a.rowid && b.pos === a.pos - 1;
      const step = down ? -1 : 1;
      while (i + run < n && at[i + run]?.rowid === a.rowid && at[i + run]!.pos === a.pos + step * run) run++;
    }
    const src = a && run >= MIN_REF_RUN ? origin(a.rowid) : null;
    if (!a || !src || !sameRun(list, i, src, a.pos, run, down)) {
      for (let k = 0; k < run; k++) literalAt.push(i + k);
      lit += run;
      i += run;
      continue;
    }
    putVarint(prog, lit);
    putVarint(prog, run * 2 + (down ? 1 : 0));
    putVarint(prog, a.rowid);
    putVarint(prog, a.pos);
    putVarint(prog, check(list, i));
    lit = 0;
    i += run;
  }
  if (literalAt.length === n) return { literal: list, refs: null, literalAt };
  if (lit > 0) {
    putVarint(prog, lit);
    putVarint(prog, 0);
  }
  const literal = Buffer.allocUnsafe(literalAt.length * HASH_BYTES);
  literalAt.forEach((src, k) => list.copy(literal, k * HASH_BYTES, src * HASH_BYTES, (src + 1) * HASH_BYTES));
  return { literal, refs: Buffer.from(prog), literalAt };
}

/**
 * The full list back. `origin(rowid)` returns an origin event's literal hashes (null when it is no longer stored); a
 * reference whose origin is gone or no longer holds the hashes it named (its check fails) contributes nothing.
 */
export function decodeBlockList(
  literal: Buffer,
  refs: Uint8Array | null,
  origin: (rowid: number) => Buffer | null,
): Buffer {
  if (refs === null) return literal;
  let o = 0;
  const next = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      const byte = refs[o++];
      if (byte === undefined) throw new Error("KV block list program ends inside a number");
      v += (byte & 127) * scale;
      if (byte < 128) return v;
      scale *= 128;
    }
  };
  const parts: Buffer[] = [];
  let used = 0;
  while (o < refs.length) {
    const lit = next();
    const count = next();
    if (lit > 0) {
      if ((used + lit) * HASH_BYTES > literal.byteLength)
        throw new Error("KV block list names more literal hashes than it holds");
      parts.push(literal.subarray(used * HASH_BYTES, (used + lit) * HASH_BYTES));
      used += lit;
    }
    if (count === 0) continue;
    const run = Math.floor(count / 2);
    const down = count % 2 === 1;
    const rowid = next();
    const pos = next();
    const want = next();
    const src = origin(rowid);
    const first = down ? pos - run + 1 : pos;
    if (src === null || first < 0 || (first + run) * HASH_BYTES > src.byteLength || check(src, pos) !== want) continue;
    const part = src.subarray(first * HASH_BYTES, (first + run) * HASH_BYTES);
    if (!down) parts.push(part);
    else {
      const rev = Buffer.allocUnsafe(part.byteLength);
      for (let k = 0; k < run; k++) part.copy(rev, k * HASH_BYTES, (run - 1 - k) * HASH_BYTES, (run - k) * HASH_BYTES);
      parts.push(rev);
    }
  }
  if (used * HASH_BYTES !== literal.byteLength) throw new Error("KV block list holds literal hashes its program skips");
  return Buffer.concat(parts);
}
