import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareBenches, resolveRevision } from "./bench-compare";

// A throwaway repository with a "benchmark" whose figure is a file's content: the last commit says 100, the working
// tree 150, so the comparison must report each side's own figure, run in turns, and leave no worktree behind.
let root: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-compare-test-"));
  const bench = `const fs = require("node:fs");
const speed = fs.readFileSync("speed.txt", "utf8").trim();
if (speed === "fail") { console.log("partial: 1 s"); console.error("it broke"); process.exit(3); }
fs.appendFileSync(process.env.RUN_LOG, speed + "\\n");
console.log("warming up");
console.log("speed: " + speed + " x real time (target ≥ 3000 x)");
console.log("args: " + process.argv.length + " given, last " + process.argv.at(-1));`;
  fs.writeFileSync(path.join(root, "bench.cjs"), bench);
  fs.writeFileSync(
    path.join(root, "package.json"),
    JSON.stringify({ name: "t", private: true, scripts: { "bench:fake": "node bench.cjs" } }),
  );
  fs.writeFileSync(path.join(root, "speed.txt"), "100\n");
  git("init", "-q");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", ".");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "first");
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("bench:compare", () => {
  it("runs the benchmark on the base revision and on the working tree in turns, figures side by side", async () => {
    fs.writeFileSync(path.join(root, "speed.txt"), "150\n");
    const runLog = path.join(root, "runs.log");
    process.env.RUN_LOG = runLog;
    const lines: string[] = [];
    const rows = await compareBenches(
      { base: "HEAD", runs: 3, bench: "bench:fake", args: ["--minutes", "7"] },
      { root, log: (l) => lines.push(l) },
    );
    expect(rows.find((r) => r.key === "speed")).toEqual({
      key: "speed",
      unit: "x real time",
      base: [100, 100, 100],
      current: [150, 150, 150],
      ratio: 1.5,
    });
    // The benchmark's arguments reach it.
    expect(rows.find((r) => r.key === "args")?.current).toEqual([4, 4, 4]);
    // A B, B A, A B.
    expect(fs.readFileSync(runLog, "utf8").trim().split("\n")).toEqual(["100", "150", "150", "100", "100", "150"]);
    expect(lines.at(-1)).toMatch(/^figure/);
    expect(lines.join("\n")).toMatch(/speed\s+x real time\s+100 · 100 · 100; 100\s+150 · 150 · 150; 150\s+1\.500/);
    expect(git("worktree", "list").split("\n")).toHaveLength(1);
  });

  it("names a failed run, shows the end of its output and removes the worktree", async () => {
    fs.writeFileSync(path.join(root, "speed.txt"), "fail\n");
    await expect(
      compareBenches({ base: "HEAD", runs: 1, bench: "bench:fake", args: [] }, { root, log: () => {} }),
    ).rejects.toThrow(/bench:fake failed on .* \+ changes \(exit 3\); its output ended:\n(.|\n)*it broke/);
    expect(git("worktree", "list").split("\n")).toHaveLength(1);
  });

  it.each(["no-such-branch", "HEAD~5", "-q"])("refuses a base that names no commit: %s", (rev) => {
    expect(() => resolveRevision(root, rev)).toThrow(`--base ${rev}: not a commit of this repository`);
  });
});
