import v8 from "node:v8";
import { isMainThread, workerData, type Worker } from "node:worker_threads";

// Each thread's V8 heap, seen from the main thread. A thread cannot be asked for its heap while it is busy (a preview
// replays for seconds without yielding), so each one writes its figures into a small shared buffer every few seconds
// and the main thread reads the latest. RSS belongs to the process (threads share one address space): it is reported
// once, beside the per-thread heaps.

/** Float64 fields of a slot: heap used, heap total, heap limit, external (ArrayBuffers etc.), when sampled (ms). */
const FIELDS = 5;
const SAMPLE_EVERY_MS = 5_000;

export type ThreadHeap = {
  thread: string;
  heapUsed: number;
  heapTotal: number;
  heapLimit: number;
  external: number;
  sampledAt: number;
};

/** A new slot, handed to a thread in its workerData as `memorySlot`. */
export function memorySlot(): SharedArrayBuffer {
  return new SharedArrayBuffer(FIELDS * 8);
}

/** This thread's heap now, as the FIELDS of a slot in their order. */
function sample(): [number, number, number, number, number] {
  const h = v8.getHeapStatistics();
  return [h.used_heap_size, h.total_heap_size, h.heap_size_limit, h.external_memory, Date.now()];
}

function write(slot: Float64Array): void {
  slot.set(sample());
}

function heapOf(thread: string, f: ArrayLike<number>): ThreadHeap {
  return { thread, heapUsed: f[0]!, heapTotal: f[1]!, heapLimit: f[2]!, external: f[3]!, sampledAt: f[4]! };
}

/** In a worker thread: write this thread's heap into its slot now and every few seconds (no-op without a slot). */
export function reportThreadMemory(): void {
  if (isMainThread) return;
  const buffer = (workerData as { memorySlot?: SharedArrayBuffer } | null)?.memorySlot;
  if (!(buffer instanceof SharedArrayBuffer)) return;
  const slot = new Float64Array(buffer);
  write(slot);
  setInterval(() => write(slot), SAMPLE_EVERY_MS).unref();
}

type Registry = Map<string, { slot: Float64Array; worker: Worker }> & {
  /** The main thread's own limit when it has one below V8's (its heap guard), bytes. */
  mainLimit?: number;
};
// The registry is read by /metrics (server process) and by the Sources page (a route bundle): one per process.
const key = Symbol.for("switchyard.threadMemory");
type Holder = { [key]?: Registry };

function registry(): Registry {
  const holder = globalThis as Holder;
  holder[key] ??= new Map();
  return holder[key];
}

/** Report `bytes` as the main thread's heap limit (the heap guard's, which V8's own limit does not show). */
export function setMainHeapLimit(bytes: number): void {
  registry().mainLimit = bytes;
}

/** Track a thread's slot under `label` (e.g. ingest-1) until it exits. At most one entry per live thread. */
export function trackThread(label: string, worker: Worker, slot: SharedArrayBuffer): void {
  const threads = registry();
  threads.set(label, { slot: new Float64Array(slot), worker });
  worker.once("exit", () => {
    if (threads.get(label)?.worker === worker) threads.delete(label);
  });
}

/** The main thread's heap now, then each live thread's latest sample (threads not yet sampled are left out). */
export function threadHeaps(): ThreadHeap[] {
  const main = sample();
  const threads = registry();
  if (threads.mainLimit !== undefined) main[2] = Math.min(main[2], threads.mainLimit);
  const out = [heapOf("main", main)];
  for (const [thread, { slot }] of [...threads].sort(([a], [b]) => a.localeCompare(b)))
    if (slot[4]) out.push(heapOf(thread, slot));
  return out;
}

/** The process's memory: its resident set and each thread's heap. */
export function processMemory(): { rss: number; threads: ThreadHeap[] } {
  return { rss: process.memoryUsage.rss(), threads: threadHeaps() };
}
