// Fast deterministic 64-bit block hashes built from two 32-bit murmur3 lanes. Block content is
// abstract: a content id (an integer below 2^53) stands for the tokens of one block.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const TWO32 = 4294967296;

/** murmur3's 32-bit finalizer: mixes every input bit into every output bit (unsigned result). */
export function fmix(h: number): number {
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

/** "0000" … "9999" as the little-endian u32 of their four ASCII digits: one 4-byte store writes a group of digits. */
const GROUPS = new Uint32Array(10_000);
for (let i = 0; i < 10_000; i++) {
  const d = String(i).padStart(4, "0");
  GROUPS[i] = d.charCodeAt(0) | (d.charCodeAt(1) << 8) | (d.charCodeAt(2) << 16) | (d.charCodeAt(3) << 24);
}

/** The DataView of the last array written to (callers write many hashes into one array in a row). */
let viewed: Uint8Array | null = null;
let view: DataView = new DataView(new ArrayBuffer(0));

/** Digits of 0 <= x < 10^4 without leading zeros ("0" for 0) at bytes[off…]; returns the end offset. */
function writeLead(bytes: Uint8Array, off: number, x: number): number {
  const w = GROUPS[x]!;
  if (x >= 1000) {
    bytes[off] = w & 255;
    bytes[off + 1] = (w >>> 8) & 255;
    bytes[off + 2] = (w >>> 16) & 255;
    bytes[off + 3] = w >>> 24;
    return off + 4;
  }
  if (x >= 100) {
    bytes[off] = (w >>> 8) & 255;
    bytes[off + 1] = (w >>> 16) & 255;
    bytes[off + 2] = w >>> 24;
    return off + 3;
  }
  if (x >= 10) {
    bytes[off] = (w >>> 16) & 255;
    bytes[off + 1] = w >>> 24;
    return off + 2;
  }
  bytes[off] = w >>> 24;
  return off + 1;
}

/** Digits of 0 <= x < 10^8 (an integer) without leading zeros; returns the end offset. */
function writeBelow1e8(bytes: Uint8Array, d: DataView, off: number, x: number): number {
  if (x < 10_000) return writeLead(bytes, off, x);
  const top = (x / 10_000) | 0;
  off = writeLead(bytes, off, top);
  d.setUint32(off, GROUPS[x - top * 10_000]!, true);
  return off + 4;
}

/**
 * toDecimal(hi, lo) written as ASCII digits into bytes at `off` (room for 20 bytes needed); returns the end offset. No
 * string is made: the simulator writes the text of hashes it never keeps (local hashes of serialised chains, removed
 * blocks) this way. Groups of four digits are one store each, read from a table (no division per digit).
 */
export function writeDecimal(bytes: Uint8Array, off: number, hi: number, lo: number): number {
  if (hi === 0 && lo < 10_000) return writeLead(bytes, off, lo);
  let d = view;
  if (bytes !== viewed) {
    viewed = bytes;
    d = view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  if (hi === 0) {
    // lo < 2^32 may exceed int32: its top (below 429,497) and its last 4 digits.
    const top = Math.floor(lo / 10_000);
    off = writeBelow1e8(bytes, d, off, top);
    d.setUint32(off, GROUPS[lo - top * 10_000]!, true);
    return off + 4;
  }
  // As toDecimal: the value is a * 10^12 + b * 10^4 + low with a below 1.9e7, b below 10^8.
  const y = hi * 7296 + lo;
  const q = Math.floor(y / 10_000);
  const low = y - q * 10_000;
  const top = hi * 429496 + q;
  const a = Math.floor(top / 1e8);
  const b = top - a * 1e8;
  if (a > 0) {
    off = writeBelow1e8(bytes, d, off, a);
    const b1 = (b / 10_000) | 0;
    d.setUint32(off, GROUPS[b1]!, true);
    d.setUint32(off + 4, GROUPS[b - b1 * 10_000]!, true);
    d.setUint32(off + 8, GROUPS[low]!, true);
    return off + 12;
  }
  off = writeBelow1e8(bytes, d, off, b);
  d.setUint32(off, GROUPS[low]!, true);
  return off + 4;
}
