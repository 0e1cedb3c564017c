// Run `next build` when there is no build or a source file is newer than it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = process.cwd();
const SOURCES = [
  "app",
  "components",
  "server",
  "db",
  "proxy.ts",
  "next.config.ts",
  "package-lock.json",
  "tsconfig.json",
];

function newest(p: string): number {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return 0;
  const st = fs.statSync(full);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of fs.readdirSync(full)) max = Math.max(max, newest(path.join(p, e)));
  return max;
}

/** True when a production build exists and no source is newer. */
export function buildIsFresh(): boolean {
  const id = path.join(root, ".next", "BUILD_ID");
  if (!fs.existsSync(id)) return false;
  const built = fs.statSync(id).mtimeMs;
  return SOURCES.every((s) => newest(s) <= built);
}

// One build at a time across processes (parallel test files, `npm start` beside a test run): `next build` refuses
// to start while another runs in the same directory. The lock is a directory (mkdir is atomic) holding its owner's pid.
const LOCK = path.join(root, ".next-build.lock");

function ownerAlive(): boolean {
  try {
    process.kill(Number(fs.readFileSync(path.join(LOCK, "pid"), "utf8")), 0);
    return true;
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Take the build lock; false when the build became fresh while waiting for another process's. */
function lockOrFresh(): boolean {
  let waited = 0;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, "pid"), String(process.pid));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    // An owner that died mid-build (or before writing its pid, given a few seconds) leaves the lock behind.
    if (!ownerAlive() && waited >= 5_000) fs.rmSync(LOCK, { recursive: true, force: true });
    if (waited === 0) console.log("Waiting for another process's next build…");
    sleepSync(500);
    waited += 500;
    if (buildIsFresh()) return false;
  }
}

export function buildIfNeeded(): void {
  if (buildIsFresh() || !lockOrFresh()) return;
  let status: number | null = 0;
  try {
    if (buildIsFresh()) return;
    console.log("Building the dashboard (next build)…");
    status = spawnSync("npx", ["next", "build"], {
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    }).status;
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
  if (status !== 0) process.exit(status ?? 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(root, "scripts", "build-if-needed.ts"))
  buildIfNeeded();
