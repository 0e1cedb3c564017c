// Compile the processes that run beside Next — the dashboard's server, its worker threads, the simulator, `npm start`'s
// supervisor and `npm run import` — into plain JavaScript under dist/, one bundle per entry, so that production runs
// them with `node` alone (docs/architecture.md, "Compiled processes"). Packages stay in node_modules (external);
// our own modules are bundled, so an imported name is a direct binding, not a property read on another module.
//
//   node scripts/build-server.mjs            build once
//   node scripts/build-server.mjs --watch    rebuild on every change (npm run dev)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** dist name → source. Threads are started by file (server/threads.ts names them). */
export const ENTRIES = {
  dashboard: "server/main.ts",
  sim: "server/sim/cli.ts",
  start: "scripts/start.ts",
  import: "scripts/import.ts",
  // Read by next.config.mjs (at build and at run time) as plain JavaScript.
  "next-config": "server/next-config.ts",
  "threads/ingest": "server/ingest/ingest-worker.ts",
  "threads/checkpoint": "server/ingest/checkpoint-worker.ts",
  "threads/attribution": "server/jobs/attribution-worker.ts",
  "threads/pg-ingest": "server/ingest/pg/ingest-worker.ts",
  "threads/preview": "server/preview/preview-worker.ts",
  "threads/ndjson-writer": "server/sim/ndjson-writer.ts",
};

/** `import "server-only"` guards Next's client bundles; outside Next it has nothing to guard. */
const serverOnly = {
  name: "server-only",
  setup(build) {
    build.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty" }));
    build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
  },
};

export function buildOptions() {
  return {
    absWorkingDir: root,
    entryPoints: Object.entries(ENTRIES).map(([out, src]) => ({ out, in: src })),
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "linked",
    logLevel: "warning",
    plugins: [serverOnly],
    // A bundled module that calls require() (none of ours should) gets Node's, not esbuild's throwing stand-in.
    banner: {
      js: 'import { createRequire as __syCreateRequire } from "node:module"; const require = __syCreateRequire(import.meta.url);',
    },
  };
}

/** Written after each full build: scripts/build-if-needed.mjs compares the sources' times with it. */
export const SERVER_STAMP = path.join(root, "dist", ".built");

/** Compile every bundle into dist/ (a fraction of a second) and stamp them. */
export async function buildServer() {
  await esbuild.build(buildOptions());
  fs.writeFileSync(SERVER_STAMP, `${new Date().toISOString()}\n`);
}

async function main() {
  const started = Date.now();
  if (process.argv.includes("--watch")) {
    const ctx = await esbuild.context({
      ...buildOptions(),
      plugins: [
        ...buildOptions().plugins,
        {
          name: "report",
          setup(build) {
            build.onEnd((r) => console.log(`server bundles rebuilt (${r.errors.length} errors)`));
          },
        },
      ],
    });
    await ctx.watch();
    return;
  }
  await buildServer();
  console.log(`server bundles built in dist/ (${Date.now() - started} ms)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
