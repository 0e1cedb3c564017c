import { MALLOC_TRIM_EVERY_MS } from "../memory-budget";
import { mallocAddon, trimMalloc } from "../native/malloc";
import { log } from "./logger";
import { metrics } from "./metrics";

// When the dashboard gives its C heap's free pages back (server/native/malloc.ts): every MALLOC_TRIM_EVERY_MS, and a
// second after a worker thread exits (an idle preview thread leaves hundreds of MB freed between live blocks).

export type TrimWhy = "interval" | "thread_exit";

function trim(why: TrimWhy): void {
  const t = performance.now();
  const released = trimMalloc();
  const m = metrics();
  m.mallocTrims.inc({ why });
  m.mallocTrimmed.inc(released);
  if (released >= 16 * 1024 * 1024)
    log().info(
      { why, released_mb: Math.round(released / 1048576), ms: Math.round(performance.now() - t) },
      "gave freed C-heap memory back to the system",
    );
}

let pending: NodeJS.Timeout | null = null;

/** Trim a second from now (once, however many threads exit meanwhile). */
export function trimSoon(why: TrimWhy = "thread_exit"): void {
  if (pending || !mallocAddon()) return;
  pending = setTimeout(() => {
    pending = null;
    trim(why);
  }, 1000);
  pending.unref();
}

/** Start trimming every `everyMs`; returns a stop function. Says once when the addon is missing. */
export function startMallocTrim(everyMs = MALLOC_TRIM_EVERY_MS): () => void {
  if (!mallocAddon()) {
    log().warn(
      "server/native is not built (run `npm run build`): freed C-heap memory is not given back, so memory stays high after previews",
    );
    return () => {};
  }
  const timer = setInterval(() => trim("interval"), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
