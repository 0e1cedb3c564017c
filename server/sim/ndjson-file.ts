import { closeSync, openSync, writeSync } from "node:fs";

// A buffered, synchronous NDJSON file writer: lines are encoded straight into one reused buffer
// and written in emission order, so the file depends only on the simulation, never on I/O timing.

export class NdjsonFile {
  private fd: number;
  private buf: Buffer;
  private off = 0;
  lines = 0;

  constructor(path: string, bufferBytes = 8 * 1024 * 1024) {
    this.fd = openSync(path, "w");
    this.buf = Buffer.allocUnsafe(bufferBytes);
  }

  write(line: string): void {
    this.lines++;
    const worst = line.length * 3 + 1;
    if (this.off + worst > this.buf.length) {
      this.flush();
      if (worst > this.buf.length) {
        this.writeAll(Buffer.from(`${line}\n`, "utf8"));
        return;
      }
    }
    this.off += this.buf.write(line, this.off, "utf8");
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
