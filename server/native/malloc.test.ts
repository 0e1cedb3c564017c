import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { mallocAddon, trimMalloc } from "./malloc";

// `npm ci` builds the addon (scripts/build-native.mjs); CI must have it, elsewhere the test says it is missing.
const glibc =
  process.platform === "linux" &&
  !!(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })?.header?.glibcVersionRuntime;

describe("giving the C heap's free memory back", () => {
  it.runIf(glibc)("is built on this machine (npm ci runs scripts/build-native.mjs)", () => {
    expect(mallocAddon(), "server/native is not built: run `node scripts/build-native.mjs`").not.toBeNull();
  });

  it.runIf(glibc)("returns the pages freed between blocks still held, which free() alone keeps", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const MB = 1024 * 1024;
    // 160 MB of 1 KiB buffers (each its own malloc), one in a hundred kept: no free top for free() to trim.
    let all: Buffer[] = [];
    const kept: Buffer[] = [];
    for (let i = 0; i < 160 * 1024; i++) {
      const b = Buffer.allocUnsafeSlow(1024).fill(i & 0xff);
      all.push(b);
      if (i % 100 === 0) kept.push(b);
    }
    all = [];
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 100));
    }
    const released = trimMalloc();
    expect(kept.length).toBe(1639);
    expect(released).toBeGreaterThan(64 * MB);
    // Nothing left to give back right after.
    expect(trimMalloc()).toBeLessThan(16 * MB);
  });
});
