import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stopAndRemove } from "./stop-process";

/** A process that, told to stop, writes one more file into `dir` after `delayMs` and exits (or ignores SIGTERM). */
function writerOnStop(dir: string, delayMs: number, ignoreTerm = false) {
  const code = ignoreTerm
    ? `process.on("SIGTERM", () => {}); console.log("up"); setInterval(() => {}, 1000);`
    : `const fs = require("fs"); process.on("SIGTERM", () => setTimeout(() => {
         fs.mkdirSync(${JSON.stringify(dir)} + "/data", { recursive: true });
         fs.writeFileSync(${JSON.stringify(dir)} + "/data/snapshot", "x"); process.exit(0); }, ${delayMs}));
       console.log("up"); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "ignore"] });
  const up = new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  return { child, up };
}

describe("stopAndRemove", () => {
  it("waits for a process that writes as it stops, then removes its folder", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-stop-"));
    const { child, up } = writerOnStop(dir, 300);
    await up;
    await stopAndRemove(child, dir);
    expect(child.exitCode).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("kills a process that ignores SIGTERM after the grace period", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-stop-"));
    const { child, up } = writerOnStop(dir, 0, true);
    await up;
    await stopAndRemove(child, dir, 200);
    expect(child.signalCode).toBe("SIGKILL");
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("removes the folder of a process that has already exited, or of none", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-stop-"));
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    await new Promise((resolve) => child.once("exit", resolve));
    await stopAndRemove(child, dir);
    expect(fs.existsSync(dir)).toBe(false);
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-stop-"));
    await stopAndRemove(null, other);
    expect(fs.existsSync(other)).toBe(false);
  });
});
