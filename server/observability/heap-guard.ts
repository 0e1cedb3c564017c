import v8 from "node:v8";
import { log } from "./logger";
import { setMainHeapLimit } from "./thread-memory";

// The dashboard main thread's heap limit. `--max-old-space-size` cannot carry it: V8 applies that flag to every isolate
// of the process and it overrides the worker threads' own resourceLimits (a preview thread would get the main
// thread's limit). So the main thread checks its own heap after each sample: past its limit on two samples in a row
// (V8 collects garbage in between), it logs what it holds and stops the process with a non-zero code, loudly and in
// one place, instead of growing until the host kills it.

const CHECK_EVERY_MS = 10_000;

/** Whether `used` bytes are over `limitMb` on this sample and on the one before (pure; tests use it). */
export function overLimit(usedBytes: number, limitMb: number, overBefore: boolean): { over: boolean; stop: boolean } {
  const over = usedBytes > limitMb * 1024 * 1024;
  return { over, stop: over && overBefore };
}

/** Start checking the main thread's heap against `limitMb`; `onStop` is called once (default: exit with code 70). */
export function startHeapGuard(limitMb: number, onStop: () => void = () => process.exit(70)): () => void {
  setMainHeapLimit(limitMb * 1024 * 1024);
  let overBefore = false;
  const timer = setInterval(() => {
    const h = v8.getHeapStatistics();
    const { over, stop } = overLimit(h.used_heap_size, limitMb, overBefore);
    overBefore = over;
    if (!stop) return;
    clearInterval(timer);
    log().fatal(
      { heap_used_mb: Math.round(h.used_heap_size / 1048576), limit_mb: limitMb },
      `the dashboard's main thread passed its heap limit (${limitMb} MB) twice in a row; stopping`,
    );
    onStop();
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
