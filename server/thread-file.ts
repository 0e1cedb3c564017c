import fs from "node:fs";
import path from "node:path";
import type { ThreadKind } from "./memory-budget";

// Worker threads run compiled JavaScript: `npm run build` (scripts/build-server.mjs) writes one bundle per thread to
// dist/threads/, also for the tests, whose setup builds it. No thread loads TypeScript.

export type ThreadName = ThreadKind | "ndjson-writer";

/** The compiled file of thread `name`; an error that says how to build it when it is missing. */
export function threadFile(name: ThreadName): string {
  const file = path.join(process.cwd(), "dist", "threads", `${name}.mjs`);
  if (!fs.existsSync(file))
    throw new Error(`the ${name} thread is not built (${path.relative(process.cwd(), file)}): run \`npm run build\``);
  return file;
}
