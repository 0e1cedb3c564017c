import path from "node:path";
import { processNodeArgs } from "./memory-budget";

// The compiled processes (scripts/build-server.mjs writes them to dist/), started with plain `node`.

export const COMPILED = {
  dashboard: "dist/dashboard.mjs",
  sim: "dist/sim.mjs",
  start: "dist/start.mjs",
  import: "dist/import.mjs",
} as const;

export type CompiledName = keyof typeof COMPILED;

/** The absolute file of a compiled process, under `root` (the working directory by default). */
export function compiledFile(name: CompiledName, root = process.cwd()): string {
  return path.join(root, COMPILED[name]);
}

/** Node's arguments that run compiled process `name`: its memory flags (server/memory-budget.ts), then its file. */
export function nodeArgs(name: CompiledName, root = process.cwd()): string[] {
  return [...processNodeArgs(name), compiledFile(name, root)];
}
