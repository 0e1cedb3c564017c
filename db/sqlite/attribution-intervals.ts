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

/** First byte of a list in the packed form (an unpacked list starts with its first worker id, which is never 0). */
const PACKED = 0;

/**
 * Intervals as a blob: PACKED, then per interval its worker and reason ids in one byte (w × 16 + why, for w in
 * 1..15 and why in 0..15; else a 0 byte, then both as varints), stored_at as the (zigzag) difference from the
 * previous interval's (from 0 for the first), and removed_at − stored_at + 1 (0 while resident): ~7 bytes each.
 * An empty list is an empty blob. Lists written before the packed form (worker and reason ids as two varints, no
 * leading byte) still decode.
 */
export function encodeIntervals(list: readonly Interval[]): Buffer {
  if (list.length === 0) return Buffer.alloc(0);
  const out: number[] = [PACKED];
  let prev = 0;
  for (const v of list) {
    if (v.w >= 1 && v.w < 16 && v.why >= 0 && v.why < 16) out.push(v.w * 16 + v.why);
    else {
      out.push(0);
      putVarint(out, v.w);
      putVarint(out, v.why);
    }
    putVarint(out, zigzag(v.storedAt - prev));
    putVarint(out, v.removedAt === null ? 0 : v.removedAt - v.storedAt + 1);
    prev = v.storedAt;
  }
  return Buffer.from(out);
}

/** The inverse of encodeIntervals (either form). */
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
  const packed = b.length > 0 && b[0] === PACKED;
  if (packed) o = 1;
  const out: Interval[] = [];
  let prev = 0;
  while (o < b.length) {
    let w: number;
    let why: number;
    const head = packed ? b[o++]! : -1;
    if (head > 0) {
      w = head >>> 4;
      why = head & 15;
    } else {
      w = next();
      why = next();
    }
    const storedAt = prev + unzigzag(next());
    const r = next();
    out.push({ w, why, storedAt, removedAt: r === 0 ? null : storedAt + r - 1 });
    prev = storedAt;
  }
  return out;
}

/** Intervals kept per block (oldest closed ones dropped first): a block stored and evicted more often is capped. */
export const MAX_INTERVALS = 64;

/** A list with a stored interval of worker w at ts appended (capped), or the same list when it already has it. */
export function withStored(list: readonly Interval[], w: number, ts: number): readonly Interval[] {
  if (list.some((v) => v.w === w && v.storedAt === ts)) return list;
  const out = [...list, { w, storedAt: ts, removedAt: null, why: 0 }];
  if (out.length > MAX_INTERVALS) {
    const i = out.findIndex((v) => v.removedAt !== null);
    out.splice(i < 0 ? 0 : i, 1);
  }
  return out;
}

/**
 * A list with the latest interval of worker w that is open (`open(v)`: no removal and no clear of its worker since)
 * and stored at or before ts closed at ts for reason `why`; the same list when w already has a removal at ts or
 * nothing is open.
 */
export function withRemoved(
  list: readonly Interval[],
  w: number,
  ts: number,
  why: number,
  open: (v: Interval) => boolean,
): readonly Interval[] {
  let best = -1;
  for (let i = 0; i < list.length; i++) {
    const v = list[i]!;
    if (v.w !== w) continue;
    if (v.removedAt === ts) return list;
    if (v.storedAt <= ts && open(v) && (best < 0 || v.storedAt > list[best]!.storedAt)) best = i;
  }
  if (best < 0) return list;
  const out = list.slice();
  out[best] = { ...list[best]!, removedAt: ts, why };
  return out;
}

/** Where a block was resident at a time t, and its latest removal before t (the chosen worker's when it had one). */
export type Residency = {
  residentOn: readonly string[];
  lastRemoval: { reason: string; at: number; workerId: string } | null;
};

/**
 * What a block's interval list says at t, for a turn on worker id `chosen` (-2: none), on either engine: the workers
 * it was resident on, and its latest removal before t (the chosen worker's when it had one, else the latest). Names
 * are attr_names ids, read back through `byId`; `clearedEnd` gives an open interval's end from a later clear of its
 * worker (null when no worker was ever cleared).
 */
export function residencyOf(
  list: readonly Interval[],
  t: number,
  chosen: number,
  byId: readonly string[],
  clearedEnd: ((v: Interval) => { at: number; why: number } | null) | null,
): Residency {
  const residentOn: string[] = [];
  let rw = -1;
  let rat = 0;
  let rwhy = 0;
  for (const v of list) {
    let endAt = v.removedAt;
    let why = v.why;
    if (endAt === null && clearedEnd) {
      const e = clearedEnd(v);
      if (e) ({ at: endAt, why } = e);
    }
    if (v.storedAt <= t && (endAt === null || endAt > t)) residentOn.push(byId[v.w]!);
    else if (endAt !== null && endAt <= t) {
      const mine = Number(v.w === chosen) - Number(rw !== -1 && rw === chosen);
      if (rw === -1 || mine > 0 || (mine === 0 && endAt > rat)) {
        rw = v.w;
        rat = endAt;
        rwhy = why;
      }
    }
  }
  const lastRemoval = rw === -1 ? null : { reason: byId[rwhy] ?? "unknown", at: rat, workerId: byId[rw]! };
  return { residentOn, lastRemoval };
}
