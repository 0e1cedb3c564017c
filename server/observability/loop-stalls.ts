import { log } from "./logger";
import { metrics } from "./metrics";

// Stalls of the dashboard's event loop: a synchronous SQLite statement, a lock wait (busy_timeout blocks the thread) or
// a long computation holds every page and API answer of this process meanwhile. A tick every TICK_MS notices how late
// it ran; a stall of STALL_MS or more is counted (`switchyard_event_loop_stalls_total`) and the longest of each
// LOG_EVERY_MS is logged once, so an operator can tell a slow page from a blocked process.

const TICK_MS = 250;
export const STALL_MS = 1_000;
const LOG_EVERY_MS = 10_000;

/** How late a tick ran past its interval, and whether that counts as a stall. Pure: the monitor below feeds it. */
export function stallOf(expectedAt: number, ranAt: number): { lateMs: number; stall: boolean } {
  const lateMs = Math.max(0, Math.round(ranAt - expectedAt));
  return { lateMs, stall: lateMs >= STALL_MS };
}

/** Watch this thread's event loop; returns a stop function. */
export function startLoopStallMonitor(now: () => number = () => performance.now()): () => void {
  let expected = now() + TICK_MS;
  let worst = 0;
  let lastLog = 0;
  const timer = setInterval(() => {
    const t = now();
    const { lateMs, stall } = stallOf(expected, t);
    expected = t + TICK_MS;
    if (!stall) return;
    metrics().loopStalls.inc();
    worst = Math.max(worst, lateMs);
    if (t - lastLog < LOG_EVERY_MS) return;
    log().warn({ ms: worst }, "the event loop was blocked: pages and API calls of this process waited as long");
    lastLog = t;
    worst = 0;
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
