import { createRequire } from "node:module";
import path from "node:path";
import { MALLOC_ADDON } from "./addon-path.mjs";

// The C heap's free memory, given back to the system. glibc's free() returns only an arena's free top; memory freed in
// the middle (a preview thread's SQLite pages and buffers, between what other threads still hold) stays resident
// until malloc_trim(0) returns its whole pages. One preview of an hour left ~180 MB that way; a trim brought the
// process back below where it started. The call is a small addon (malloc.c, built by scripts/build-native.mjs on
// `npm ci`); without it (another C library, or no compiler) nothing is trimmed and the caller says so once.

type Addon = { trim(): boolean; available(): boolean };

let addon: Addon | null | undefined;

/** The addon, or null when it is not built or this is not glibc. */
export function mallocAddon(): Addon | null {
  if (addon !== undefined) return addon;
  try {
    const require = createRequire(path.join(process.cwd(), "package.json"));
    const loaded = require(path.join(process.cwd(), MALLOC_ADDON)) as Addon;
    addon = loaded.available() ? loaded : null;
  } catch {
    addon = null;
  }
  return addon;
}

/** Give free C-heap pages back; returns the resident bytes released (0 when nothing was, or no addon). */
export function trimMalloc(): number {
  const a = mallocAddon();
  if (!a) return 0;
  const before = process.memoryUsage.rss();
  a.trim();
  return Math.max(0, before - process.memoryUsage.rss());
}
