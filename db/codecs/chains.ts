// Hash lists as stored: u64 values as 8-byte big-endian words, concatenated (a SQLite BLOB). Pure; no I/O.
// Rows written before the binary form hold comma-separated decimal text; every decoder here reads both.

export const HASH_BYTES = 8;

const EMPTY = Buffer.alloc(0);

const TWO_32 = 4_294_967_296;

/** Powers of ten up to the six digits taken per step (lo · 10^6 + six digits stays below 2^53, exact in a double). */
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/**
 * Decimal u64 strings (already validated) as one big-endian blob, 8 bytes per hash. Two 32-bit limbs, no BigInt;
 * digits taken six at a time (one division per six digits, not per digit: this runs for every hash ingested).
 */
export function encodeHashes(list: readonly string[]): Buffer {
  const out = Buffer.allocUnsafe(list.length * HASH_BYTES);
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    const n = s.length;
    let hi = 0;
    let lo = 0;
    let k = 0;
    let step = n % 6 || 6;
    while (k < n) {
      let chunk = 0;
      for (const end = k + step; k < end; k++) chunk = chunk * 10 + (s.charCodeAt(k) - 48);
      const p = POW10[step]!;
      const v = lo * p + chunk;
      const carry = (v / TWO_32) >>> 0;
      lo = v - carry * TWO_32;
      hi = hi * p + carry;
      step = 6;
    }
    const o = i * HASH_BYTES;
    out[o] = hi >>> 24;
    out[o + 1] = hi >>> 16;
    out[o + 2] = hi >>> 8;
    out[o + 3] = hi;
    out[o + 4] = lo >>> 24;
    out[o + 5] = lo >>> 16;
    out[o + 6] = lo >>> 8;
    out[o + 7] = lo;
  }
  return out;
}

/** A stored hash list (binary blob, or legacy comma-separated decimal text) as a blob; null stays null. */
export function asBinary(v: Uint8Array | string | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return v === "" ? EMPTY : encodeHashes(v.split(","));
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** Number of hashes in a stored list (binary or legacy text); 0 for null. */
export function hashCount(v: Uint8Array | string | null | undefined): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return v === "" ? 0 : countCommas(v) + 1;
  return v.byteLength / HASH_BYTES;
}

function countCommas(s: string): number {
  let n = 0;
  for (let i = s.indexOf(","); i !== -1; i = s.indexOf(",", i + 1)) n++;
  return n;
}

/** A stored hash list (binary or legacy text) as decimal strings; null → []. */
export function decodeHashes(v: Uint8Array | string | null | undefined): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === "string") return v === "" ? [] : v.split(",");
  const b = asBinary(v)!;
  const n = b.byteLength / HASH_BYTES;
  const out: string[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = b.readBigUInt64BE(i * HASH_BYTES).toString();
  return out;
}

/** One decimal u64 as an 8-byte blob (kv.stored parent_hash); null stays null. */
export function encodeHash(h: string | null): Buffer | null {
  return h === null ? null : encodeHashes([h]);
}

/** A stored single hash (8-byte blob or legacy decimal text) as a decimal string; null stays null. */
export function decodeHash(v: Uint8Array | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === "string" ? v : (decodeHashes(v)[0] ?? null);
}

/**
 * A hash list taken out of an event's JSON text before parsing (server/ingest/lift-hashes.ts): its length and, when
 * it is stored, its hashes encoded as encodeHashes would (null: validated only, never stored). Stands in an event's
 * list field on the SQLite ingest path, so the list's decimal strings are never built.
 */
export class LiftedHashes {
  constructor(
    readonly length: number,
    readonly bytes: Buffer | null,
  ) {}
}

/**
 * A list field of a validated event as its bytes (encodeHashes), whether it was lifted or parsed. A lifted list is
 * told by not being an array, not by its class: it may be another module instance's (a route bundled apart from the
 * server), or a plain object with a plain Uint8Array after a message between threads.
 */
export function hashListBytes(v: readonly string[] | LiftedHashes): Buffer {
  if (Array.isArray(v)) return encodeHashes(v as readonly string[]);
  const bytes = (v as LiftedHashes).bytes as Uint8Array | null;
  if (!bytes) throw new Error("a lifted hash list kept no bytes");
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const samePrefix = (a: Buffer, b: Buffer, n: number) =>
  a.subarray(0, n * HASH_BYTES).equals(b.subarray(0, n * HASH_BYTES));

/** How many leading hashes two blobs share: one native compare when one extends the other, else a binary search. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.byteLength, b.byteLength) / HASH_BYTES;
  if (samePrefix(a, b, n)) return n;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (samePrefix(a, b, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** One link of a stored chain: the base's first `shared` hashes, then `tail`. */
export type ChainLink = { base: string | null; shared: number; tail: Buffer };

/**
 * The first `count` hashes of a chain stored as links (leaf first). `next(id)` returns the base's link, or a full
 * chain already known (a memo) to stop at. Walks each ancestor at most once and copies each hash once: linear in
 * `count` plus the number of links, never in the length of every ancestor. Throws on a missing base or a cycle.
 */
export function assembleChain(
  leaf: ChainLink,
  count: number,
  next: (id: string) => ChainLink | Buffer | undefined,
): Buffer {
  const out = Buffer.alloc(count * HASH_BYTES);
  let end = count;
  let link: ChainLink = leaf;
  const seen = new Set<string>();
  for (;;) {
    if (end > link.shared) {
      const take = Math.min(end - link.shared, link.tail.byteLength / HASH_BYTES);
      if (take < end - link.shared)
        throw new Error(`stored chain is shorter than its count (${link.shared + take} < ${end})`);
      link.tail.copy(out, link.shared * HASH_BYTES, 0, take * HASH_BYTES);
      end = link.shared;
    }
    if (end === 0) return out;
    const id = link.base;
    if (id === null || seen.has(id))
      throw new Error(
        id === null ? "stored chain names no base for its shared blocks" : `stored chain has a cycle at ${id}`,
      );
    seen.add(id);
    const base = next(id);
    if (base === undefined) throw new Error(`stored chain names a missing base ${id}`);
    if (Buffer.isBuffer(base)) {
      if (base.byteLength < end * HASH_BYTES) throw new Error(`base ${id} holds fewer hashes than shared`);
      base.copy(out, 0, 0, end * HASH_BYTES);
      return out;
    }
    link = base;
  }
}
