import { closeSync, openSync, writeSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { LineOut } from "./json-lines";

// A buffered, synchronous NDJSON file writer: lines are encoded straight into a reused buffer
// and written in emission order, so the file depends only on the simulation, never on I/O timing.
// A line is either one string (write) or pieces appended in order (text/ascii, then endLine), so
// that an event's big hash arrays go into the buffer without first being joined into a line.
// With `thread`, full buffers are written by a helper thread while the next one fills (the
// simulation does not wait on the disk); close() still returns only once every byte is written.

export type NdjsonFileOptions = {
  /** Write full buffers on a helper thread (three buffers of `bufferBytes` in turn). */
  thread?: boolean;
};

/** Buffers the helper thread takes in turn. */
const SLOTS = 3;

/**
 * The helper thread: waits for each slot in turn to hold a byte count, writes that many bytes of the slot's buffer,
 * and frees the slot (0); a count of -1 ends it. A failed write is kept (its message) and reported by the owner.
 */
const WRITER = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { fd, buffers, state, error } = workerData;
const bufs = buffers.map((b) => Buffer.from(b));
const n = bufs.length;
for (let i = 0; ; i = (i + 1) % n) {
  Atomics.wait(state, i, 0);
  const len = Atomics.load(state, i);
  if (len > 0 && Atomics.load(state, n) === 0) {
    try {
      let done = 0;
      while (done < len) done += writeSync(fd, bufs[i], done, len - done);
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

type Writer = {
  buffers: Buffer[];
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
    const worker = new Worker(WRITER, { eval: true, workerData: { fd: this.fd, buffers: shared, state, error } });
    // It ends by itself at close; an owner that never closes must not be kept alive by it.
    worker.unref();
    this.writer = { buffers: shared.map((b) => Buffer.from(b)), state, error, slot: 0 };
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
