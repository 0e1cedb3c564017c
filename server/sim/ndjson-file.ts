import { closeSync, openSync, writeSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { writeDecimal } from "./hashing";
import type { LineOut } from "./json-lines";
import { HASH_RECORD } from "./ndjson-writer";
import { threadFile } from "../thread-file";

// A buffered, synchronous NDJSON file writer: lines are encoded straight into a reused buffer
// and written in emission order, so the file depends only on the simulation, never on I/O timing.
// A line is either one string (write) or pieces appended in order (text/ascii, then endLine), so
// that an event's big hash arrays go into the buffer without first being joined into a line.
// With `thread`, full buffers are written by a helper thread while the next one fills (the
// simulation does not wait on the disk); close() still returns only once every byte is written.
// With the helper thread, hash lists (u64s) go into the buffer as their raw 32-bit halves behind a
// marker byte and the helper writes their decimal digits: that work leaves the simulation's thread.

export type NdjsonFileOptions = {
  /** Write full buffers on a helper thread (six buffers of `bufferBytes` in turn). */
  thread?: boolean;
};

/** Buffers the helper thread takes in turn. */
const SLOTS = 6;

/**
 * A hash-list record in a buffer handed to the helper thread: this byte, padding up to the next multiple of 4, the count
 * n (u32), then n pairs of u32 halves (hi, lo), all u32 aligned in the buffer; the helper writes them as the JSON items
 * `"d","d",…`. JSON text never holds a raw byte below 0x20 other than the newline this file adds, so the marker cannot
 * be mistaken for text.
 */
const HASHES = HASH_RECORD;
/** Bytes a record of n hashes takes at most: marker and padding (4), count (4), halves (8 n). */
const recordBytes = (n: number) => 8 + 8 * n;

/** Digits of up to 1,024 hashes (23 bytes each with their quotes and comma). */
const scratch = Buffer.allocUnsafe(1024 * 23);

type Writer = {
  buffers: Buffer[];
  /** The same buffers as u32 (hash records are u32 aligned). */
  words: Uint32Array[];
  /** Byte count handed over per slot (0: free, -1: end), then the length of a failed write's message. */
  state: Int32Array;
  error: SharedArrayBuffer;
  /** The slot being filled. */
  slot: number;
};

export class NdjsonFile implements LineOut {
  private fd: number;
  private buf: Buffer;
  private off = 0;
  private readonly writer: Writer | null;
  lines = 0;

  constructor(path: string, bufferBytes = 8 * 1024 * 1024, options: NdjsonFileOptions = {}) {
    this.fd = openSync(path, "w");
    if (!options.thread) {
      this.writer = null;
      this.buf = Buffer.allocUnsafe(bufferBytes);
      return;
    }
    const shared = Array.from({ length: SLOTS }, () => new SharedArrayBuffer(bufferBytes));
    const state = new Int32Array(new SharedArrayBuffer(4 * (SLOTS + 1)));
    const error = new SharedArrayBuffer(512);
    const worker = new Worker(threadFile("ndjson-writer"), {
      workerData: { ndjsonWriter: { fd: this.fd, buffers: shared, state, error } },
    });
    // It ends by itself at close; an owner that never closes must not be kept alive by it.
    worker.unref();
    this.writer = {
      buffers: shared.map((b) => Buffer.from(b)),
      words: shared.map((b) => new Uint32Array(b, 0, b.byteLength >> 2)),
      state,
      error,
      slot: 0,
    };
    this.buf = this.writer.buffers[0]!;
  }

  /** One whole line (no newline). */
  write(line: string): void {
    this.text(line);
    this.endLine();
  }

  /** Part of the current line, any text. */
  text(s: string): void {
    const worst = s.length * 3;
    if (this.off + worst > this.buf.length) {
      this.flush();
      if (worst > this.buf.length) {
        this.direct(Buffer.from(s, "utf8"));
        return;
      }
    }
    this.off += this.buf.write(s, this.off, "utf8");
  }

  /** Part of the current line, ASCII only (one byte per character, copied as is). */
  ascii(s: string): void {
    if (this.off + s.length > this.buf.length) {
      this.flush();
      if (s.length > this.buf.length) {
        this.direct(Buffer.from(s, "latin1"));
        return;
      }
    }
    this.off += this.buf.write(s, this.off, "latin1");
  }

  /** Part of the current line, ASCII bytes src[from, to) copied as they are. */
  bytes(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.off + n > this.buf.length) {
      this.flush();
      if (n > this.buf.length) {
        this.direct(Buffer.from(src.subarray(from, to)));
        return;
      }
    }
    this.buf.set(src.subarray(from, to), this.off);
    this.off += n;
  }

  /**
   * Part of the current line: the JSON items `"d0","d1",…` (no brackets) of hashes [from, to), hash i's halves (hi, lo)
   * at words[2 i], words[2 i + 1]. With the helper thread they are copied as they are and the helper writes the digits.
   */
  u64s(words: Uint32Array, from: number, to: number): void {
    const w = this.writer;
    if (w === null) {
      this.digits(words, from, to, false);
      return;
    }
    let i = from;
    while (i < to) {
      let fit = Math.floor((this.buf.length - this.off - 1 - recordBytes(0)) / 8);
      if (fit < 1) {
        this.flush();
        fit = Math.floor((this.buf.length - 1 - recordBytes(0)) / 8);
        // A buffer too small for one record (tests): digits written here.
        if (fit < 1) return this.digits(words, i, to, i > from);
      }
      const n = Math.min(fit, to - i);
      const b = this.buf;
      let o = this.off;
      // A list split over two records: the comma between them.
      if (i > from) b[o++] = 44;
      b[o] = HASHES;
      const q = (o >> 2) + 1;
      const w32 = w.words[w.slot]!;
      w32[q] = n;
      const m = 2 * n;
      const from2 = 2 * i;
      // A short list by hand (a subarray and set cost more than copying a few hundred words).
      if (m <= 512) for (let k = 0, at = q + 1; k < m; k++) w32[at + k] = words[from2 + k]!;
      else w32.set(words.subarray(from2, from2 + m), q + 1);
      this.off = 4 * (q + 1 + 2 * n);
      i += n;
    }
  }

  /** Hashes [from, to) of `words` as digits written on this thread (no helper thread); `comma`: one goes first. */
  private digits(words: Uint32Array, from: number, to: number, comma: boolean): void {
    const write = writeDecimal;
    for (let i = from; i < to; i += 1024) {
      const end = Math.min(to, i + 1024);
      let at = 0;
      for (let k = i; k < end; k++) {
        if (k > from || comma) scratch[at++] = 44;
        scratch[at++] = 34;
        at = write(scratch, at, words[2 * k]!, words[2 * k + 1]!);
        scratch[at++] = 34;
      }
      this.bytes(scratch, 0, at);
    }
  }

  /** End the current line. */
  endLine(): void {
    this.lines++;
    if (this.off === this.buf.length) this.flush();
    this.buf[this.off++] = 10;
  }

  /** Hand the buffered bytes on: written now, or (with a helper thread) queued, switching to the next free buffer. */
  flush(): void {
    if (this.off === 0) return;
    const w = this.writer;
    if (w === null) {
      this.writeAll(this.buf.subarray(0, this.off));
      this.off = 0;
      return;
    }
    this.handOver(w, this.off);
    this.buf = w.buffers[w.slot]!;
    this.off = 0;
  }

  close(): void {
    this.flush();
    const w = this.writer;
    if (w !== null) {
      // Every slot before the end marker is written by the time the thread frees it.
      this.handOver(w, -1);
      this.failed(w);
    }
    closeSync(this.fd);
  }

  /** Give the current slot to the helper thread and wait until the next one is free. */
  private handOver(w: Writer, count: number): void {
    const { state } = w;
    Atomics.store(state, w.slot, count);
    Atomics.notify(state, w.slot);
    w.slot = (w.slot + 1) % SLOTS;
    const next = count < 0 ? (w.slot + SLOTS - 1) % SLOTS : w.slot;
    for (let v = Atomics.load(state, next); v !== 0; v = Atomics.load(state, next)) Atomics.wait(state, next, v);
    this.failed(w);
  }

  /** Throw the helper thread's write error, if any. */
  private failed(w: Writer): void {
    const n = Atomics.load(w.state, SLOTS);
    if (n > 0) throw new Error(Buffer.from(w.error, 0, n).toString());
  }

  /** Bytes larger than a buffer, written after everything before them. */
  private direct(data: Buffer): void {
    const w = this.writer;
    if (w !== null)
      for (let k = 0; k < SLOTS; k++)
        for (let v = Atomics.load(w.state, k); v !== 0; v = Atomics.load(w.state, k)) Atomics.wait(w.state, k, v);
    this.writeAll(data);
  }

  private writeAll(data: Buffer): void {
    let done = 0;
    while (done < data.length) done += writeSync(this.fd, data, done, data.length - done);
  }
}
