// A KV event's block list as stored: the hashes it holds literally (8-byte big-endian u64 words, as codecs/chains.ts) and,
// when some runs of it repeat hashes an earlier KV event holds literally, a program of varints that interleaves the
// literal hashes with references (origin kv_events rowid, position in the origin's literal hashes, count, direction).
// Pure; no I/O.

import { HASH_BYTES } from "./chains";
import { putVarint, varintReader } from "./runs";

/** Shortest run stored as a reference (a shorter one costs about what its hashes cost). */
export const MIN_REF_RUN = 4;

/** Low 16 bits of the hash at word `i`: a check that a referenced origin still holds what it held. */
const check = (b: Buffer, i: number) => b.readUInt16BE(i * HASH_BYTES + 6);

export type EncodedList = {
  /** The hashes kept literally, in list order. */
  literal: Buffer;
  /** The program (null: every hash is literal, `literal` is the whole list). */
  refs: Buffer | null;
  /**
   * Where the literal hashes come from, as pairs [first list index, count] in list order (consecutive literal entries
   * are one pair): `literal` is those ranges of the list, concatenated.
   */
  literalRuns: number[];
};

/** What encoding needs to know of an origin: its time (seconds, as the location recorded it) and literal count. */
export type OriginInfo = { sec: number; count: number };

/**
 * Encode a list (8-byte words) given where earlier events hold its hashes literally (`at.rowid[i]`, 0 when nowhere
 * known, `at.pos[i]`, and the origin's time `at.sec[i]` in seconds) and what those events are now (`origin(rowid)`,
 * null when gone). Runs of at least MIN_REF_RUN hashes at consecutive positions of one origin (ascending, or
 * descending as evictions report a chain leaf first) become references when the origin is still the row the location
 * was taken from (same time) and holds that range; the rest stays literal. Program: repeated [literal count]
 * [2 × reference count + (1 when descending)][origin rowid, position of the run's first hash, check (count > 0)].
 */
export function encodeBlockList(
  list: Buffer,
  at: { rowid: Float64Array; pos: Int32Array; sec: Float64Array },
  origin: (rowid: number) => OriginInfo | null,
): EncodedList {
  const n = list.byteLength / HASH_BYTES;
  const { rowid, pos, sec } = at;
  const prog: number[] = [];
  const runs: number[] = [];
  let literals = 0;
  let lit = 0;
  let i = 0;
  while (i < n) {
    const r = rowid[i]!;
    const p = pos[i]!;
    let run = 1;
    let down = false;
    if (r !== 0) {
      down = i + 1 < n && rowid[i + 1] === r && pos[i + 1] === p - 1;
      const step = down ? -1 : 1;
      while (i + run < n && rowid[i + run] === r && pos[i + run] === p + step * run) run++;
    }
    const o = r !== 0 && run >= MIN_REF_RUN ? origin(r) : null;
    const first = down ? p - run + 1 : p;
    if (!o || o.sec !== sec[i] || first < 0 || first + run > o.count) {
      const last = runs.length - 2;
      if (last >= 0 && runs[last]! + runs[last + 1]! === i) runs[last + 1]! += run;
      else runs.push(i, run);
      literals += run;
      lit += run;
      i += run;
      continue;
    }
    putVarint(prog, lit);
    putVarint(prog, run * 2 + (down ? 1 : 0));
    putVarint(prog, r);
    putVarint(prog, p);
    putVarint(prog, check(list, i));
    lit = 0;
    i += run;
  }
  if (literals === n) return { literal: list, refs: null, literalRuns: runs };
  if (lit > 0) {
    putVarint(prog, lit);
    putVarint(prog, 0);
  }
  const literal = Buffer.allocUnsafe(literals * HASH_BYTES);
  // One copy per run of consecutive literal entries (a copy per 8-byte word costs more than the words).
  for (let k = 0, to = 0; k < runs.length; k += 2) {
    list.copy(literal, to, runs[k]! * HASH_BYTES, (runs[k]! + runs[k + 1]!) * HASH_BYTES);
    to += runs[k + 1]! * HASH_BYTES;
  }
  return { literal, refs: Buffer.from(prog), literalRuns: runs };
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
  const { next, done } = varintReader(refs, "KV block list program");
  const parts: Buffer[] = [];
  let used = 0;
  while (!done()) {
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
