// The attribution index's per-block interval list as a compact blob (see attribution-index.ts).

/** One residency interval: worker and reason as attr_names ids; removedAt null while resident. */
export type Interval = { w: number; storedAt: number; removedAt: number | null; why: number };

/** Append a non-negative integer (< 2^53) as a LEB128 varint. */
function putVarint(out: number[], v: number) {
  while (v >= 128) {
    out.push((v % 128) + 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

const zigzag = (v: number) => (v >= 0 ? v * 2 : -v * 2 - 1);
const unzigzag = (v: number) => (v % 2 === 0 ? v / 2 : -(v + 1) / 2);

/**
 * Intervals as a blob of varints, per interval: worker id, reason id, stored_at as the (zigzag) difference from the
 * previous interval's (from 0 for the first), and removed_at − stored_at + 1 (0 while resident): ~8 bytes each.
 */
export function encodeIntervals(list: readonly Interval[]): Buffer {
  const out: number[] = [];
  let prev = 0;
  for (const v of list) {
    putVarint(out, v.w);
    putVarint(out, v.why);
    putVarint(out, zigzag(v.storedAt - prev));
    putVarint(out, v.removedAt === null ? 0 : v.removedAt - v.storedAt + 1);
    prev = v.storedAt;
  }
  return Buffer.from(out);
}

/** The inverse of encodeIntervals. */
export function decodeIntervals(b: Uint8Array): Interval[] {
  let o = 0;
  const next = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      const byte = b[o++]!;
      v += (byte & 127) * scale;
      if (byte < 128) return v;
      scale *= 128;
    }
  };
  const out: Interval[] = [];
  let prev = 0;
  while (o < b.length) {
    const w = next();
    const why = next();
    const storedAt = prev + unzigzag(next());
    const r = next();
    out.push({ w, why, storedAt, removedAt: r === 0 ? null : storedAt + r - 1 });
    prev = storedAt;
  }
  return out;
}
