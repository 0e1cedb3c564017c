// Builds server/native (one C function: glibc's malloc_trim, server/native/malloc.ts) with node-gyp against Node's
// headers. `npm ci` runs it (postinstall); `npm run build` runs it when the addon is missing. Without it Switchyard
// runs, only without giving freed C-heap memory back (the dashboard logs that once): a failed build warns and exits 0.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MALLOC_ADDON } from "../server/native/addon-path.mjs";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "server", "native");
const built = path.join(root, MALLOC_ADDON);
if (process.argv.includes("--if-missing") && fs.existsSync(built)) process.exit(0);

// npm names its own node-gyp to the scripts it runs; outside npm, the one beside npm.
const candidates = [
  process.env.npm_config_node_gyp,
  path.join(
    path.dirname(process.execPath),
    "..",
    "lib",
    "node_modules",
    "npm",
    "node_modules",
    "node-gyp",
    "bin",
    "node-gyp.js",
  ),
].filter((f) => f && fs.existsSync(f));
if (candidates.length === 0) {
  console.warn(
    "server/native: node-gyp not found; built without malloc_trim (freed C-heap memory stays with the process)",
  );
  process.exit(0);
}
// Node's own headers: npm's nodedir setting, else those installed beside this node (nothing is downloaded).
const prefix = path.join(path.dirname(process.execPath), "..");
const nodedir =
  process.env.npm_config_nodedir ||
  (fs.existsSync(path.join(prefix, "include", "node", "node_api.h")) ? prefix : undefined);
const args = [candidates[0], "rebuild", "--directory", dir, ...(nodedir ? ["--nodedir", nodedir] : [])];
const r = spawnSync(process.execPath, args, {
  stdio: ["ignore", "ignore", "pipe"],
  encoding: "utf8",
});
if (r.status !== 0 || !fs.existsSync(built)) {
  console.warn(
    `server/native: node-gyp failed (${r.status}); built without malloc_trim\n${(r.stderr ?? "").slice(-2000)}`,
  );
  process.exit(0);
}
console.log("server/native: built malloc.node");
