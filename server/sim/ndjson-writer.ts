// The source of the --out file's helper thread (ndjson-file.ts starts it with eval): it writes the buffers handed to
// it and expands the hash records in them into decimal digits, off the simulation's thread.

/**
 * The helper thread, for hash records behind the byte `marker` (see ndjson-file.ts): waits for each slot in turn to hold
 * a byte count, writes that many bytes of the slot's buffer (hash records expanded to digits through its own output
 * buffer), and frees the slot (0); a count of -1 ends it. A failed write is kept (its message) and reported by the
 * owner. Its digits are hashing.ts's writeDecimal (four digits per table entry, one store each); ndjson-file.test.ts
 * checks them against toDecimal.
 */
export function writerSource(marker: number): string {
  return `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { fd, buffers, state, error } = workerData;
const bufs = buffers.map((b) => Buffer.from(b));
const words = buffers.map((b) => new Uint32Array(b, 0, b.byteLength >> 2));
const n = bufs.length;
const out = Buffer.allocUnsafe(1 << 20);
const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
const ROOM = out.length - 24;
const G = new Uint32Array(10000);
for (let i = 0; i < 10000; i++) {
  const d = String(i).padStart(4, "0");
  G[i] = d.charCodeAt(0) | (d.charCodeAt(1) << 8) | (d.charCodeAt(2) << 16) | (d.charCodeAt(3) << 24);
}
function drain(o) {
  let done = 0;
  while (done < o) done += writeSync(fd, out, done, o - done);
}
function lead(o, x) {
  const w = G[x];
  if (x >= 1000) { view.setUint32(o, w, true); return o + 4; }
  if (x >= 100) { out[o] = (w >>> 8) & 255; out[o + 1] = (w >>> 16) & 255; out[o + 2] = w >>> 24; return o + 3; }
  if (x >= 10) { out[o] = (w >>> 16) & 255; out[o + 1] = w >>> 24; return o + 2; }
  out[o] = w >>> 24;
  return o + 1;
}
function below1e8(o, x) {
  if (x < 10000) return lead(o, x);
  const top = (x / 10000) | 0;
  o = lead(o, top);
  view.setUint32(o, G[x - top * 10000], true);
  return o + 4;
}
function digits(o, hi, lo) {
  if (hi === 0) {
    if (lo < 10000) return lead(o, lo);
    const top = Math.floor(lo / 10000);
    o = below1e8(o, top);
    view.setUint32(o, G[lo - top * 10000], true);
    return o + 4;
  }
  const y = hi * 7296 + lo;
  const q = Math.floor(y / 10000);
  const low = y - q * 10000;
  const top = hi * 429496 + q;
  const a = Math.floor(top / 1e8);
  const b = top - a * 1e8;
  if (a > 0) {
    o = below1e8(o, a);
    const b1 = (b / 10000) | 0;
    view.setUint32(o, G[b1], true);
    view.setUint32(o + 4, G[b - b1 * 10000], true);
    o += 8;
  } else o = below1e8(o, b);
  view.setUint32(o, G[low], true);
  return o + 4;
}
function expand(src, w32, len) {
  let i = 0;
  let o = 0;
  while (i < len) {
    let j = src.indexOf(${marker}, i);
    if (j === -1 || j > len) j = len;
    while (i < j) {
      const take = Math.min(j - i, out.length - o);
      src.copy(out, o, i, i + take);
      o += take;
      i += take;
      if (o === out.length) { drain(o); o = 0; }
    }
    if (j === len) break;
    let p = (j >> 2) + 1;
    const end = p + 1 + 2 * w32[p];
    for (p++; p < end; p += 2) {
      if (o > ROOM) { drain(o); o = 0; }
      out[o] = 34;
      o = digits(o + 1, w32[p] >>> 0, w32[p + 1] >>> 0);
      out[o] = 34;
      out[o + 1] = 44;
      o += 2;
    }
    // No comma after the last item.
    o--;
    i = p << 2;
  }
  drain(o);
}
for (let i = 0; ; i = (i + 1) % n) {
  Atomics.wait(state, i, 0);
  const len = Atomics.load(state, i);
  if (len > 0 && Atomics.load(state, n) === 0) {
    try {
      expand(bufs[i], words[i], len);
    } catch (e) {
      const m = Buffer.from(String((e && e.message) || e));
      Buffer.from(error).set(m.subarray(0, error.byteLength));
      Atomics.store(state, n, Math.min(m.length, error.byteLength));
    }
  }
  Atomics.store(state, i, 0);
  Atomics.notify(state, i);
  if (len < 0) break;
}
`;
}
