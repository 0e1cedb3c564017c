import { constants, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import { log } from "./logger";
import { setMainHeapLimit } from "./thread-memory";

// The dashboard main thread's heap limit. `--max-old-space-size` cannot carry it: V8 applies that flag to every isolate
// of the process and it overrides the worker threads' own resourceLimits (a preview thread would get the main
// thread's limit). So the main thread checks its own heap: what a full collection leaves (the live heap) past the
// limit after two full collections in a row stops the process with a non-zero code, loudly and in one place, instead
// of growing until the host kills it. The heap used between collections holds garbage too (with small semi-spaces,
// a large trace promotes a few hundred MB of it before the next full collection), so it only counts past twice the
// limit (on two samples 10 s apart), for a heap that grows without V8 ever collecting it in full.

const CHECK_EVERY_MS = 10_000;
/** Heap used between full collections counts only past this many times the limit. */
export const UNCOLLECTED_FACTOR = 2;

/** Full collections in a row that left the live heap over the limit, and samples in a row of the heap used over
 * UNCOLLECTED_FACTOR times it. */
export type GuardState = { liveOver: number; usedOver: number };

/**
 * Fold one reading into the guard's state (pure; tests use it): `live`, the heap a full collection left, or `used`, the
 * heap used at a sample. Two in a row of either kind over its line stop the process.
 */
export function judge(
  s: GuardState,
  r: { live: number } | { used: number },
  limitMb: number,
): GuardState & { stop: boolean } {
  const limit = limitMb * 1024 * 1024;
  const next =
    "live" in r
      ? { ...s, liveOver: r.live > limit ? s.liveOver + 1 : 0 }
      : { ...s, usedOver: r.used > UNCOLLECTED_FACTOR * limit ? s.usedOver + 1 : 0 };
  return { ...next, stop: next.liveOver >= 2 || next.usedOver >= 2 };
}

/** Start checking the main thread's heap against `limitMb`; `onStop` is called once (default: exit with code 70). */
export function startHeapGuard(limitMb: number, onStop: () => void = () => process.exit(70)): () => void {
  setMainHeapLimit(limitMb * 1024 * 1024);
  let state: GuardState = { liveOver: 0, usedOver: 0 };
  let stopped = false;
  const take = (r: { live: number } | { used: number }) => {
    if (stopped) return;
    const { stop, ...next } = judge(state, r, limitMb);
    state = next;
    if (!stop) return;
    halt();
    const used = v8.getHeapStatistics().used_heap_size;
    log().fatal(
      {
        heap_used_mb: Math.round(used / 1048576),
        heap_live_mb: "live" in r ? Math.round(r.live / 1048576) : null,
        limit_mb: limitMb,
      },
      "live" in r
        ? `the dashboard's main thread kept more than its heap limit (${limitMb} MB) after two full collections in a row; stopping`
        : `the dashboard's main thread used more than ${UNCOLLECTED_FACTOR} times its heap limit (${limitMb} MB) twice in a row; stopping`,
    );
    onStop();
  };
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        take({ live: v8.getHeapStatistics().used_heap_size });
  });
  gcs.observe({ entryTypes: ["gc"] });
  const timer = setInterval(() => take({ used: v8.getHeapStatistics().used_heap_size }), CHECK_EVERY_MS);
  timer.unref();
  const halt = () => {
    stopped = true;
    clearInterval(timer);
    gcs.disconnect();
  };
  return halt;
}
