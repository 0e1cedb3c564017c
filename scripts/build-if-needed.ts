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

export function buildIfNeeded(): void {
  if (buildIsFresh()) return;
  console.log("Building the dashboard (next build)…");
  const res = spawnSync("npx", ["next", "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (res.status !== 0) process.exit(res.status ?? 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(root, "scripts", "build-if-needed.ts"))
  buildIfNeeded();
