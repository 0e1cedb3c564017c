import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../lib/free-port";

// A throwaway PostgreSQL server for tests and benchmarks: initdb into a temp folder, started on a free port, removed
// by stop(). Run as the `postgres` user when this process is root (initdb refuses root).

/**
 * stop: shut down and remove everything. halt / resume: shut the server down as a crash would (immediate mode, its
 * connections cut) and start it again on the same port and data, to test what clients do while it is gone.
 */
export type ThrowawayPg = { url: string; stop: () => void; halt: () => void; resume: () => void };

/** The folder of initdb / pg_ctl: on PATH, else Debian's newest /usr/lib/postgresql/N/bin; null when none. */
export function pgBinDir(): string | null {
  const onPath = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" }).stdout.trim();
  if (onPath) return path.dirname(onPath);
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : null;
}

/**
 * Start a throwaway server. `durable: false` (tests) turns fsync off; benchmarks keep PostgreSQL's defaults so a
 * commit is on disk before it returns, as SQLite's synchronous=FULL is.
 */
export async function startThrowawayPg(options: { durable?: boolean } = {}): Promise<ThrowawayPg> {
  const bin = pgBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (no initdb found); install Debian's postgresql package");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-pg-"));
  const data = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, cmd), ...args], { stdio: "pipe" })
      : execFileSync(path.join(bin, cmd), args, { stdio: "pipe" });
  if (asRoot) execFileSync("chown", ["postgres:postgres", dir]);
  const port = await freePort();
  const settings = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", "-c max_connections=200"];
  if (options.durable === false) settings.push("-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off");
  const start = () =>
    run("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-o", settings.join(" "), "-w", "start"]);
  let running = false;
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
    start();
    running = true;
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let stopped = false;
  const halt = () => {
    if (!running) return;
    running = false;
    run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  };
  const resume = () => {
    if (running || stopped) return;
    start();
    running = true;
  };
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      halt();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop, halt, resume };
}
