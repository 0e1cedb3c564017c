// Fast deterministic 64-bit block hashes built from two 32-bit murmur3 lanes. Block content is
// abstract: a content id (an integer below 2^53) stands for the tokens of one block.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const TWO32 = 4294967296;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function round(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** murmur3-style 32-bit hash of four 32-bit words under a seed. */
export function mix4(seed: number, a: number, b: number, c: number, d: number): number {
  let h = seed | 0;
  h = round(h, a);
  h = round(h, b);
  h = round(h, c);
  h = round(h, d);
  return fmix(h ^ 16);
}

/** A content id (integer below 2^53) from a namespace and two integers. */
export function contentId(namespace: number, a: number, b = 0): number {
  const hi = mix4(0x3c6ef372, namespace, a, b, 1) & 0x1fffff;
  const lo = mix4(0xa54ff53a, namespace, a, b, 2);
  return hi * TWO32 + lo;
}

/** Hash of a content id combined with a token offset: the id of a block built from several parts. */
export function combineContent(acc: number, part: number, offset: number): number {
  const hi =
    mix4(0x510e527f, Math.floor(acc / TWO32), acc >>> 0, Math.floor(part / TWO32) ^ offset, part >>> 0) & 0x1fffff;
  const lo = mix4(0x9b05688c, Math.floor(acc / TWO32), acc >>> 0, Math.floor(part / TWO32), (part >>> 0) ^ offset);
  return hi * TWO32 + lo;
}

/** A 64-bit hash as two unsigned 32-bit halves. */
export type Hash64 = { hi: number; lo: number };

/** Chained sequence hash: hash of the parent's hash and this block's content (parent 0,0 = root). */
export function chainHash(parentHi: number, parentLo: number, content: number, out: Hash64): Hash64 {
  const cHi = Math.floor(content / TWO32);
  const cLo = content >>> 0;
  out.hi = mix4(0x6a09e667, parentHi, parentLo, cHi, cLo);
  out.lo = mix4(0xbb67ae85, parentLo, parentHi, cLo, cHi);
  return out;
}

/** Content-only (local) hash of one block. */
export function localHash(content: number, out: Hash64): Hash64 {
  const cHi = Math.floor(content / TWO32);
  const cLo = content >>> 0;
  out.hi = mix4(0x1f83d9ab, cHi, cLo, 0x5be0cd19, 0);
  out.lo = mix4(0x5be0cd19, cLo, cHi, 0x1f83d9ab, 0);
  return out;
}

/** "0000" … "9999". */
const DIGITS4 = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, "0"));

/**
 * The u64 decimal string of a hash, without BigInt: hi * 2^32 + lo = X * 10^4 + Y with X = hi * 429496 + ⌊y / 10^4⌋
 * and y = hi * 7296 + lo (2^32 = 429496 * 10^4 + 7296), all below 2^53; X is written as small integers (X = a * 10^8
 * + b), because turning a double above 2^31 into text is several times slower.
 */
export function toDecimal(hi: number, lo: number): string {
  if (hi === 0) return String(lo);
  const y = hi * 7296 + lo;
  const q = Math.floor(y / 10_000);
  const low = DIGITS4[y - q * 10_000]!;
  const top = hi * 429496 + q;
  const a = Math.floor(top / 1e8);
  const b = top - a * 1e8;
  const b1 = Math.floor(b / 10_000);
  const b0 = DIGITS4[b - b1 * 10_000]!;
  // join writes one flat string: a chain of `+` would leave a tree of parts that every later copy has to walk.
  if (a > 0) return [String(a), DIGITS4[b1]!, b0, low].join("");
  if (b1 > 0) return [String(b1), b0, low].join("");
  return String(b - b1 * 10_000) + low;
}

/** Writes digits of x (0 <= x < 10^width, an integer) zero-padded to `width` at bytes[end - width, end). */
function writePadded(bytes: Uint8Array, end: number, x: number, width: number): void {
  for (let i = end - 1; i >= end - width; i--) {
    const q = (x / 10) | 0;
    bytes[i] = 48 + x - q * 10;
    x = q;
  }
}

/** Number of decimal digits of a non-negative integer below 2^31. */
function digits31(x: number): number {
  let n = 1;
  while (x >= 10) {
    x = (x / 10) | 0;
    n++;
  }
  return n;
}

/**
 * toDecimal(hi, lo) written as ASCII digits into bytes at `off` (room for 20 bytes needed); returns the end offset. No
 * string is made: the simulator writes the text of hashes it never keeps (local hashes of serialised chains) this way.
 */
export function writeDecimal(bytes: Uint8Array, off: number, hi: number, lo: number): number {
  if (hi === 0) {
    // lo < 2^32 may exceed int32: split into its top and its last 4 digits.
    const top = Math.floor(lo / 10_000);
    const low = lo - top * 10_000;
    if (top === 0) {
      const n = digits31(low);
      writePadded(bytes, off + n, low, n);
      return off + n;
    }
    const n = digits31(top);
    writePadded(bytes, off + n, top, n);
    writePadded(bytes, off + n + 4, low, 4);
    return off + n + 4;
  }
  const y = hi * 7296 + lo;
  const q = Math.floor(y / 10_000);
  const low = y - q * 10_000;
  const top = hi * 429496 + q;
  const a = Math.floor(top / 1e8);
  const b = top - a * 1e8;
  if (a > 0) {
    const n = digits31(a);
    writePadded(bytes, off + n, a, n);
    writePadded(bytes, off + n + 8, b, 8);
    writePadded(bytes, off + n + 12, low, 4);
    return off + n + 12;
  }
  const n = digits31(b);
  writePadded(bytes, off + n, b, n);
  writePadded(bytes, off + n + 4, low, 4);
  return off + n + 4;
}
