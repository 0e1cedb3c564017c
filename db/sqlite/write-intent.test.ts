import { describe, expect, it } from "vitest";
import { joinWriteIntent, WriteIntent, yieldToWriters } from "./write-intent";

// The shared count of writers waiting for the lock on the event loop, and the bounded hold-back of the other threads
// (server/ingest/write-intent.test.ts runs it against real ingest threads).

describe("WriteIntent", () => {
  it("counts writers until each releases, once however often it is called", () => {
    const w = new WriteIntent();
    const a = w.announce();
    const b = w.announce();
    expect(w.writers()).toBe(2);
    a();
    a();
    expect(w.writers()).toBe(1);
    b();
    expect(w.writers()).toBe(0);
  });

  it("holds back no time with no writer, and at most maxMs with one", () => {
    const w = new WriteIntent();
    expect(w.yieldTo(1_000)).toBeLessThan(100);
    const release = w.announce();
    const waited = w.yieldTo(30);
    expect(waited).toBeGreaterThanOrEqual(29);
    expect(waited).toBeLessThan(1_000);
    release();
  });

  it("is seen through the same memory by another view of it", () => {
    const w = new WriteIntent();
    const other = new WriteIntent(w.buffer);
    const release = w.announce();
    expect(other.writers()).toBe(1);
    release();
    expect(other.writers()).toBe(0);
  });

  it("holds back only a thread that joined it", () => {
    const w = new WriteIntent();
    const release = w.announce();
    try {
      joinWriteIntent(undefined);
      expect(yieldToWriters(200)).toBe(0);
      joinWriteIntent(w.buffer);
      expect(yieldToWriters(20)).toBeGreaterThanOrEqual(19);
    } finally {
      joinWriteIntent(undefined);
      release();
    }
  });

  it.each([
    ["a plain ArrayBuffer", new ArrayBuffer(4)],
    ["too small a buffer", new SharedArrayBuffer(2)],
  ])("refuses %s", (_, buffer) => {
    expect(() => new WriteIntent(buffer as SharedArrayBuffer)).toThrow(/SharedArrayBuffer of at least 4 bytes/);
  });
});
