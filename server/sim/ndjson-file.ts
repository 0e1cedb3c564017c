import { closeSync, openSync, writeSync } from "node:fs";

// A buffered, synchronous NDJSON file writer: lines are written in emission order, so the file
// depends only on the simulation, never on I/O timing.

export class NdjsonFile {
  private fd: number;
  private chunks: string[] = [];
  private size = 0;
  lines = 0;

  constructor(
    path: string,
    private flushBytes = 4 * 1024 * 1024,
  ) {
    this.fd = openSync(path, "w");
  }

  write(line: string): void {
    this.chunks.push(line);
    this.size += line.length + 1;
    this.lines++;
    if (this.size >= this.flushBytes) this.flush();
  }

  flush(): void {
    if (!this.chunks.length) return;
    writeSync(this.fd, this.chunks.join("\n") + "\n");
    this.chunks = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
