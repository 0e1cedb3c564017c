// Run a TypeScript script (a benchmark) the way production runs our code: bundled by esbuild into plain JavaScript,
// with the same options as the server bundles (scripts/build-server.mjs), then started with `node` alone.
//
//   node scripts/run-compiled.mjs [NODE_FLAG...] scripts/bench-sim.ts [ARG...]
//
// Why not tsx: tsx loads each module as CommonJS, so every name imported from another of our modules is a getter call
// on that module's exports. The simulator's block records read their field offsets that way millions of times an
// hour: under tsx it ran at about half the speed of the bundle `npm run sim` runs (docs/benchmarks.md). A benchmark
// should time what ships.
//
// Leading `--` flags go to the child `node` (for example `--conditions=react-server`, which also sets the bundle's
// resolve conditions). The script sees process.argv[1] as its own .ts path, as under tsx.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { buildOptions } from "./build-server.mjs";

const self = fileURLToPath(import.meta.url);

/** The build scripts find the repository from their own file: they stay where they are, imported, not bundled. */
const keepBuildScripts = {
  name: "keep-build-scripts",
  setup(build) {
    build.onResolve({ filter: /build-(if-needed|server)\.mjs$/ }, (args) => ({
      path: path.resolve(args.resolveDir, args.path),
      external: true,
    }));
  },
};

/** Bundle `entry` into dist/scripts/; returns the bundle's path. */
async function bundle(entry, conditions) {
  const base = buildOptions();
  const outfile = path.join(base.absWorkingDir, "dist", "scripts", path.basename(entry).replace(/\.ts$/, ".mjs"));
  await esbuild.build({
    ...base,
    entryPoints: [entry],
    outdir: undefined,
    outExtension: undefined,
    outfile,
    conditions,
    plugins: [...base.plugins, keepBuildScripts],
  });
  return outfile;
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === "--bundled") {
    // The child: run the bundle as if it were the script itself.
    const [, bundled, entry, ...args] = argv;
    process.argv = [process.argv[0], entry, ...args];
    await import(pathToFileURL(bundled).href);
    return;
  }
  const flags = [];
  while (argv[0]?.startsWith("--")) flags.push(argv.shift());
  const entry = argv.shift();
  if (!entry || !fs.existsSync(entry)) {
    console.error("usage: node scripts/run-compiled.mjs [NODE_FLAG...] SCRIPT.ts [ARG...]");
    process.exit(2);
  }
  const conditions = flags.filter((f) => f.startsWith("--conditions=")).map((f) => f.slice("--conditions=".length));
  const bundled = await bundle(entry, conditions);
  const child = spawn(process.execPath, [...flags, self, "--bundled", bundled, path.resolve(entry), ...argv], {
    stdio: "inherit",
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (path.resolve(process.argv[1] ?? "") === self) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  });
}
