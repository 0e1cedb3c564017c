// Build what is missing or older than its sources: the Next app (`next build`, into .next/) and the compiled server
// processes (scripts/build-server.mjs, into dist/). Plain JavaScript: `npm start` runs it with node before anything is
// compiled.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildServer, SERVER_STAMP } from "./build-server.mjs";
import { MALLOC_ADDON } from "../server/native/addon-path.mjs";

const root = process.cwd();
/** What Next's build reads. */
const NEXT_SOURCES = [
  "app",
  "components",
  "server",
  "db",
  "lib",
  "proxy.ts",
  "next.config.mjs",
  "package-lock.json",
  "tsconfig.json",
];
/** What the server bundles read. */
const SERVER_SOURCES = ["server", "db", "lib", "scripts", "package-lock.json", "tsconfig.json"];

/** @param {string} p */
function newest(p) {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return 0;
  const st = fs.statSync(full);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of fs.readdirSync(full)) max = Math.max(max, newest(path.join(p, e)));
  return max;
}

/** @param {string} stamp @param {string[]} sources */
function fresh(stamp, sources) {
  if (!fs.existsSync(stamp)) return false;
  const built = fs.statSync(stamp).mtimeMs;
  return sources.every((s) => newest(s) <= built);
}

export { buildServer };

/** True when Next's production build exists and no source is newer. */
export function buildIsFresh() {
  return fresh(path.join(root, ".next", "BUILD_ID"), NEXT_SOURCES);
}

/** True when dist/ holds every server bundle and no source is newer. */
export function serverBuildIsFresh() {
  return fresh(SERVER_STAMP, SERVER_SOURCES);
}

// One build at a time across processes (parallel test files, `npm start` beside a test run): `next build` refuses
// to start while another runs in the same directory. The lock is a directory (mkdir is atomic) holding its owner's pid.
const LOCK = path.join(root, ".next-build.lock");

function ownerAlive() {
  try {
    process.kill(Number(fs.readFileSync(path.join(LOCK, "pid"), "utf8")), 0);
    return true;
  } catch {
    return false;
  }
}

/** @param {number} ms */
function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Take the build lock; false when the build became fresh while waiting for another process's. */
function lockOrFresh() {
  let waited = 0;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, "pid"), String(process.pid));
      return true;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== "EEXIST") throw e;
    }
    // An owner that died mid-build (or before writing its pid, given a few seconds) leaves the lock behind.
    if (!ownerAlive() && waited >= 5_000) fs.rmSync(LOCK, { recursive: true, force: true });
    if (waited === 0) console.log("Waiting for another process's next build…");
    sleepSync(500);
    waited += 500;
    if (buildIsFresh()) return false;
  }
}

/** Run `next build` when the Next build is missing or stale (exits the process when it fails). */
export function buildIfNeeded() {
  if (buildIsFresh() || !lockOrFresh()) return;
  let status = 0;
  try {
    if (buildIsFresh()) return;
    console.log("Building the dashboard (next build)…");
    status =
      spawnSync("npx", ["next", "build"], {
        stdio: "inherit",
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      }).status ?? 1;
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
  if (status !== 0) process.exit(status);
}

/** The C addon (server/native), when it is not built: `npm ci` builds it, this covers an install without scripts. */
function nativeIfMissing() {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
  if (fs.existsSync(path.join(root, MALLOC_ADDON))) return;
  spawnSync(process.execPath, [path.join(root, "scripts", "build-native.mjs")], { stdio: "inherit" });
}

/** Both builds, each only when needed. */
export async function buildAllIfNeeded() {
  nativeIfMissing();
  if (!serverBuildIsFresh()) await buildServer();
  buildIfNeeded();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const only = process.argv[2];
  const server = async () => {
    nativeIfMissing();
    if (!serverBuildIsFresh()) await buildServer();
  };
  const run = only === "--server" ? server : buildAllIfNeeded;
  run().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
