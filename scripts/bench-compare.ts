// `npm run bench:compare -- [--base REV] [--runs N] BENCH [ARG...]`: one benchmark on this checkout and on another
// revision (HEAD by default: the working tree's changes against the last commit), in alternating order, and each
// figure it prints side by side with its median and the ratio between them. The machine's speed drifts over minutes
// (docs/benchmarks.md), so a before/after taken an hour apart says little; runs taken in turns say more.
//
// The other revision is checked out as a temporary git worktree that shares this checkout's node_modules (hard links,
// else a symbolic link) and builds what the benchmark needs there; it is removed at the end, also on Ctrl-C.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  compareRows,
  figuresOf,
  formatRows,
  parseCompareArgs,
  runOrder,
  type CompareOptions,
  type Figure,
  type Row,
} from "./bench-compare-figures";

/** Output kept per run (its end: the figures come last); a benchmark printing more keeps its last this many bytes. */
const OUTPUT_BYTES = 4 * 1024 * 1024;

type Io = { root: string; log: (line: string) => void };

/** Run `git` in `cwd`; its trimmed stdout, or an error with its stderr. */
function git(cwd: string, args: readonly string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args[0]}: ${(r.stderr || r.stdout || "failed").trim()}`);
  return r.stdout.trim();
}

/** The commit `rev` names in `root`, or an error saying it names none. */
export function resolveRevision(root: string, rev: string): string {
  const r = spawnSync("git", ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`], {
    cwd: root,
    encoding: "utf8",
  });
  const sha = r.stdout.trim();
  if (r.status !== 0 || !/^[0-9a-f]{40}$/.test(sha)) throw new Error(`--base ${rev}: not a commit of this repository`);
  return sha;
}

/** One run of `npm run BENCH -- ARGS` in `cwd`: its output (stdout and stderr, the last OUTPUT_BYTES). */
function runBench(cwd: string, o: CompareOptions): Promise<{ code: number; output: string; seconds: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("npm", ["run", "--silent", o.bench, "--", ...o.args], {
      cwd,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let chunks: Buffer[] = [];
    let bytes = 0;
    const keep = (c: Buffer) => {
      chunks.push(c);
      bytes += c.length;
      if (bytes > 2 * OUTPUT_BYTES) {
        const all = Buffer.concat(chunks).subarray(-OUTPUT_BYTES);
        chunks = [all];
        bytes = all.length;
      }
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code: code ?? 1,
        output: Buffer.concat(chunks).subarray(-OUTPUT_BYTES).toString("utf8"),
        seconds: (performance.now() - started) / 1000,
      }),
    );
  });
}

/** A worktree of `sha` in a fresh temporary folder, sharing `root`'s node_modules; `remove` takes it away again. */
function worktreeOf(root: string, sha: string): { dir: string; remove: () => void } {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "bench-compare-"));
  const dir = path.join(parent, "tree");
  try {
    git(root, ["worktree", "add", "--detach", dir, sha]);
  } catch (err) {
    fs.rmSync(parent, { recursive: true, force: true });
    throw err;
  }
  const modules = path.join(root, "node_modules");
  if (fs.existsSync(modules)) {
    // Hard links: the worktree resolves its packages as a checkout of its own would (some bundlers refuse a
    // node_modules that is a link out of the project). Another filesystem: a symbolic link.
    const linked = spawnSync("cp", ["-al", modules, path.join(dir, "node_modules")]);
    if (linked.status !== 0) fs.symlinkSync(modules, path.join(dir, "node_modules"), "dir");
  }
  let removed = false;
  return {
    dir,
    remove: () => {
      if (removed) return;
      removed = true;
      spawnSync("git", ["worktree", "remove", "--force", dir], { cwd: root });
      fs.rmSync(parent, { recursive: true, force: true });
      spawnSync("git", ["worktree", "prune"], { cwd: root });
    },
  };
}

/**
 * Build the server bundles (dist/, the threads included) in `cwd` if they are missing or stale, before the first round:
 * some benchmarks expect them built (`npm start` or `npm run build` has, in a checkout in use; a new worktree has not).
 */
function prepare(cwd: string): void {
  if (!fs.existsSync(path.join(cwd, "scripts", "build-if-needed.mjs"))) return;
  const r = spawnSync(process.execPath, ["scripts/build-if-needed.mjs", "--server"], { cwd, encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(`building ${cwd} failed: ${(r.stderr || r.stdout).trim().split("\n").slice(-10).join("\n")}`);
}

/** This checkout's label: its commit, and whether the working tree has changes on top. */
function currentLabel(root: string): string {
  const head = git(root, ["rev-parse", "--short", "HEAD"]);
  return git(root, ["status", "--porcelain", "--untracked-files=no"]) ? `${head} + changes` : head;
}

/** Run the rounds and return the table's rows; throws on a failed run (its output's end in the message). */
export async function compareBenches(o: CompareOptions, io: Io): Promise<Row[]> {
  const sha = resolveRevision(io.root, o.base);
  const baseLabel = sha.startsWith(o.base)
    ? sha.slice(0, Math.max(7, o.base.length))
    : `${o.base} (${sha.slice(0, 7)})`;
  const label = currentLabel(io.root);
  const tree = worktreeOf(io.root, sha);
  const stop = () => {
    tree.remove();
    process.exit(130);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const runs: Record<"base" | "current", Figure[][]> = { base: [], current: [] };
  try {
    io.log(`${[o.bench, ...o.args].join(" ")}: ${o.runs} round(s), ${baseLabel} and ${label} in turns`);
    prepare(tree.dir);
    prepare(io.root);
    for (const [r, order] of runOrder(o.runs).entries())
      for (const side of order) {
        const cwd = side === "base" ? tree.dir : io.root;
        const run = await runBench(cwd, o);
        if (run.code !== 0)
          throw new Error(
            `${o.bench} failed on ${side === "base" ? baseLabel : label} (exit ${run.code}); its output ended:\n` +
              run.output.split("\n").slice(-30).join("\n"),
          );
        const figures = figuresOf(run.output);
        runs[side].push(figures);
        io.log(
          `round ${r + 1}, ${side === "base" ? baseLabel : label}: ${run.seconds.toFixed(0)} s, ${figures.length} figures`,
        );
      }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    tree.remove();
  }
  const rows = compareRows(runs.base, runs.current);
  io.log("");
  io.log(formatRows(rows, baseLabel, label));
  return rows;
}

async function main(): Promise<number> {
  const root = git(process.cwd(), ["rev-parse", "--show-toplevel"]);
  const scripts = Object.keys(
    (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts?: object }).scripts ?? {},
  );
  const parsed = parseCompareArgs(process.argv.slice(2), scripts);
  if (!parsed.ok) {
    console.error(parsed.error);
    return 2;
  }
  try {
    await compareBenches(parsed.options, { root, log: (line) => console.log(line) });
    return 0;
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

// Run as a script (run-compiled.mjs gives it its own .ts path), not when a test imports it.
if (process.argv[1]?.endsWith(path.join("scripts", "bench-compare.ts"))) main().then((code) => process.exit(code));
