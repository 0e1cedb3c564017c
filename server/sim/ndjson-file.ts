import { closeSync, openSync, writeSync } from "node:fs";
import type { LineOut } from "./json-lines";

// A buffered, synchronous NDJSON file writer: lines are encoded straight into one reused buffer
// and written in emission order, so the file depends only on the simulation, never on I/O timing.
// A line is either one string (write) or pieces appended in order (text/ascii, then endLine), so
// that an event's big hash arrays go into the buffer without first being joined into a line.

export class NdjsonFile implements LineOut {
  private fd: number;
  private buf: Buffer;
  private off = 0;
  lines = 0;

  constructor(path: string, bufferBytes = 8 * 1024 * 1024) {
    this.fd = openSync(path, "w");
    this.buf = Buffer.allocUnsafe(bufferBytes);
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
        this.writeAll(Buffer.from(s, "utf8"));
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
        this.writeAll(Buffer.from(s, "latin1"));
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
        this.writeAll(Buffer.from(src.subarray(from, to)));
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

  flush(): void {
    if (this.off === 0) return;
    this.writeAll(this.buf.subarray(0, this.off));
    this.off = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private writeAll(data: Buffer): void {
    let done = 0;
    while (done < data.length) done += writeSync(this.fd, data, done, data.length - done);
  }
}
