import v8 from "node:v8";
import type { ResourceLimits } from "node:worker_threads";
import type { CompiledName } from "./compiled";

// The memory budget of Switchyard's processes and the V8 limits derived from it (docs/operations.md, "Memory"). A
// limit is a tripwire, not a target: a thread that passes its own is stopped with an out-of-memory error and restarted
// by its owner (server/threads.ts), and the dashboard's main thread that passes its own stops the process, instead of
// either growing until the host kills something else. Bounds of the structures that grow with traffic are in
// lib/memory-bounds.ts.

/** Resident memory a process should stay under in steady work (the soak benchmark checks it). */
export const PROCESS_BUDGET_MB = { dashboard: 350, sim: 200 } as const;

/** Heap limit (MB) of the dashboard's main thread, checked by the process itself (server/observability/heap-guard.ts). */
export const DASHBOARD_MAIN_HEAP_MB = 256;

/**
 * `--max-old-space-size` (MB) of the compiled processes. Not the dashboard's: V8 applies the flag to every isolate of
 * the process, overriding its threads' own limits below, so its main thread has a guard instead (DASHBOARD_MAIN_HEAP_MB).
 */
// `npm run sim` repeats the simulator's in package.json.
export const MAIN_HEAP_MB: Record<CompiledName, number | null> = {
  dashboard: null,
  sim: 160,
  start: 64,
  import: null,
};

export type ThreadKind = "ingest" | "pg-ingest" | "checkpoint" | "attribution" | "preview";

/** Old-generation heap limit (MB) of each kind of worker thread; the preview's comes from its setting. */
export const THREAD_HEAP_MB: Record<Exclude<ThreadKind, "preview">, number> = {
  ingest: 128,
  "pg-ingest": 128,
  checkpoint: 32,
  attribution: 160,
};

/**
 * V8's semi-space limit (MB) of the dashboard's main thread: its young generation is at most three times this. V8's
 * default (16) let the main thread's committed heap run tens of MB above what it uses; 8 still put the dashboard ~30 MB
 * over its budget three minutes in. A large trace promotes a few hundred MB of short-lived garbage on the main thread
 * before the next full collection: its heap guard judges what full collections leave, not the heap used between them
 * (server/observability/heap-guard.ts). `npm run dashboard` repeats the flag in package.json.
 *
 * The flag would apply to every thread of the process, overriding their own resourceLimits: the dashboard clears it
 * once its main thread has its heap (server/threads.ts), and each thread then takes THREAD_YOUNG_MB.
 */
export const DASHBOARD_SEMI_SPACE_MB = 4;

/**
 * Young-generation limit (MB, three semi-spaces) of each kind of worker thread: the main thread's (12) for all but
 * ingest. An ingest thread allocates each body's events and rows and drops them within the body: with 12 it scavenged
 * so often that a larger young generation took the built-in mix's HTTP ingest from ~27k to ~31k events a second and
 * its CPU per event down a sixth (docs/benchmarks.md). It costs up to (48 - 12) × 2/3 = 24 MB more committed per
 * ingest thread while a backlog churns it; one thread by default. PostgreSQL's ingest thread runs as fast with 16 once
 * its old generation has a floor (THREAD_OLD_FLOOR_MB), and the 21 MB it gives back pay for the floor's garbage.
 */
export const THREAD_YOUNG_MB: Record<ThreadKind, number> = {
  ingest: 48,
  "pg-ingest": 16,
  checkpoint: 12,
  attribution: 12,
  preview: 12,
};

/**
 * Old generation (MB) below which a thread's heap runs no full collection (0: V8's own limit; server/spawn-worker.ts),
 * capped by V8 at half its old-generation limit. PostgreSQL's ingest thread keeps ~20 MB and drops a body's events,
 * rows and parameter strings within the body. With V8's own limit (the next full collection at ~1.6 times what the
 * last left) it ran a full collection every 1.4 bodies, 156–163 over the steady hour, each moving the young objects
 * still in use (the body being stored) to the old generation, which brought the next one sooner. With 64 it ran 49–62
 * and its CPU over the hour fell by a quarter (docs/benchmarks.md). Lower floors did less (48: 90, 40: 139); 96 and
 * 128 did more but need a larger old-generation limit and hold more garbage. SQLite's ingest thread showed no such
 * gain and keeps none.
 */
export const THREAD_OLD_FLOOR_MB: Record<ThreadKind, number> = {
  ingest: 0,
  "pg-ingest": 64,
  checkpoint: 0,
  attribution: 0,
  preview: 0,
};

/**
 * The simulator's semi-space limit (MB). With V8's default (16) its young generation ran up to 48 MB above what it
 * keeps, and its RSS swung 150–205 MB in the soak (budget 200). It allocates events and drops them within a step, so
 * a smaller young generation costs scavenges, not promotions. `npm run sim` repeats it in package.json.
 */
export const SIM_SEMI_SPACE_MB = 4;

/**
 * Environment of the compiled processes. glibc gives each thread its own malloc arenas; with a thread per ingest
 * body, attribution and checkpoint, freed memory scattered over them stays resident. Two arenas kept the dashboard
 * about 20 MB lower after three minutes of the steady scenario, with no measurable cost. glibc also raises its mmap
 * threshold to the size of each large block freed (up to 32 MiB), after which buffers of that size (bodies, typed
 * arrays, SQLite's) come from the arenas and, freed, stay resident between live ones: the dashboard's arenas grew
 * ~20 MB an hour that way. A fixed threshold of 128 KiB keeps every large buffer in its own mapping, given back to
 * the system when freed, and the arenas' free tops are trimmed past 128 KiB. `npm run dashboard` repeats it in
 * package.json.
 */
export const DASHBOARD_ENV = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
  MALLOC_TRIM_THRESHOLD_: "131072",
} as const;

/** The simulator takes the dashboard's malloc settings too (its writer thread and its own buffers). */
/**
 * How often the dashboard gives its C heap's whole free pages back to the system (malloc_trim, server/native). Freed
 * memory between live blocks otherwise stays resident: the arenas grew over the hour, and stayed ~180 MB up after a
 * preview's threads had exited. A trim takes milliseconds; it also runs a second after any thread exits.
 */
export const MALLOC_TRIM_EVERY_MS = 30_000;

export function processEnv(name: CompiledName): Record<string, string> {
  return name === "dashboard" || name === "sim" ? { ...DASHBOARD_ENV } : {};
}

/** Node's arguments that hold compiled process `name` to its heap limit. */
export function processNodeArgs(name: CompiledName): string[] {
  const heap = MAIN_HEAP_MB[name];
  const semi = name === "dashboard" ? DASHBOARD_SEMI_SPACE_MB : name === "sim" ? SIM_SEMI_SPACE_MB : null;
  const young = semi ? [`--max-semi-space-size=${semi}`] : [];
  return [...(heap ? [`--max-old-space-size=${heap}`] : []), ...young];
}

let ownYoungLimits = false;

/**
 * Let worker threads started from now on take their own young-generation limit (threadLimits). V8 reads
 * `--max-semi-space-size` as it sets up each isolate's heap, and when the flag is given it overrides the isolate's
 * resourceLimits: the dashboard's flag is meant for its main thread, whose heap is set up by now, so it is cleared.
 */
export function threadsTakeOwnYoungLimits(): void {
  if (ownYoungLimits) return;
  ownYoungLimits = true;
  v8.setFlagsFromString("--max-semi-space-size=0");
}

/** A thread's resourceLimits; previewMb is SWITCHYARD_PREVIEW_MEMORY_MB (a preview's whole estimate may be heap). */
export function threadLimits(kind: ThreadKind, previewMb = 1024): ResourceLimits {
  const maxYoungGenerationSizeMb = THREAD_YOUNG_MB[kind];
  if (kind === "preview") return { maxOldGenerationSizeMb: previewMb, maxYoungGenerationSizeMb };
  return { maxOldGenerationSizeMb: THREAD_HEAP_MB[kind], maxYoungGenerationSizeMb };
}
