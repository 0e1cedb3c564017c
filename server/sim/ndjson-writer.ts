// The --out file's helper thread (ndjson-file.ts starts it, compiled to dist/threads/ndjson-writer.mjs): it writes the
// buffers handed to it and expands the hash records in them into decimal digits, off the simulation's thread.
import { writeSync } from "node:fs";
import { isMainThread, workerData } from "node:worker_threads";
import { writeDecimal } from "./hashing";

/** The byte that starts a hash record in a handed-over buffer (ndjson-file.ts writes them). */
export const HASH_RECORD = 1;

export type WriterData = {
  fd: number;
  buffers: SharedArrayBuffer[];
  /** Byte count handed over per slot (0: free, -1: end), then the length of a failed write's message. */
  state: Int32Array;
  error: SharedArrayBuffer;
};

/**
 * Wait for each slot in turn to hold a byte count, write that many bytes of the slot's buffer (hash records expanded
 * to digits through its own output buffer), and free the slot (0); a count of -1 ends it. A failed write is kept (its
 * message) and reported by the owner.
 */
export function runWriter({ fd, buffers, state, error }: WriterData): void {
  const bufs = buffers.map((b) => Buffer.from(b));
  const words = buffers.map((b) => new Uint32Array(b, 0, b.byteLength >> 2));
  const n = bufs.length;
  const out = Buffer.allocUnsafe(1 << 20);
  const room = out.length - 24;
  const drain = (o: number) => {
    let done = 0;
    while (done < o) done += writeSync(fd, out, done, o - done);
  };
  const expand = (src: Buffer, w32: Uint32Array, len: number) => {
    let i = 0;
    let o = 0;
    while (i < len) {
      let j = src.indexOf(HASH_RECORD, i);
      if (j === -1 || j > len) j = len;
      while (i < j) {
        const take = Math.min(j - i, out.length - o);
        src.copy(out, o, i, i + take);
        o += take;
        i += take;
        if (o === out.length) {
          drain(o);
          o = 0;
        }
      }
      if (j === len) break;
      // The record: marker and padding up to a u32 boundary, the count, then (hi, lo) pairs.
      let p = (j >> 2) + 1;
      const end = p + 1 + 2 * w32[p]!;
      for (p++; p < end; p += 2) {
        if (o > room) {
          drain(o);
          o = 0;
        }
        out[o] = 34;
        o = writeDecimal(out, o + 1, w32[p]! >>> 0, w32[p + 1]! >>> 0);
        out[o] = 34;
        out[o + 1] = 44;
        o += 2;
      }
      // No comma after the last item.
      o--;
      i = p << 2;
    }
    drain(o);
  };
  for (let i = 0; ; i = (i + 1) % n) {
    Atomics.wait(state, i, 0);
    const len = Atomics.load(state, i);
    if (len > 0 && Atomics.load(state, n) === 0) {
      try {
        expand(bufs[i]!, words[i]!, len);
      } catch (e) {
        const m = Buffer.from(String((e as Error)?.message ?? e));
        Buffer.from(error).set(m.subarray(0, error.byteLength));
        Atomics.store(state, n, Math.min(m.length, error.byteLength));
      }
    }
    Atomics.store(state, i, 0);
    Atomics.notify(state, i);
    if (len < 0) break;
  }
}

if (!isMainThread && (workerData as { ndjsonWriter?: WriterData } | null)?.ndjsonWriter)
  runWriter((workerData as { ndjsonWriter: WriterData }).ndjsonWriter);
