import { errorMessage, log } from "../observability/logger";

/** A pass longer than this is logged with its time (they run on the dashboard's event loop, beside its pages). */
export const SLOW_PASS_MS = 1_000;

/**
 * Run `pass` now and then intervalMs after each pass ends (never two at once); a pass that throws is logged as
 * `<name> pass failed` and the next one runs on time, one slower than SLOW_PASS_MS as `<name> pass was slow`.
 * Returns a stop function that resolves once a pass in flight has finished (no next one starts): work stopped on a
 * lost lease must not act after its stop returned.
 */
export function startPasses(name: string, pass: () => Promise<unknown>, intervalMs: number): () => Promise<void> {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    const started = performance.now();
    try {
      await pass();
    } catch (err) {
      log().error({ err: errorMessage(err), ms: Math.round(performance.now() - started) }, `${name} pass failed`);
    }
    const ms = Math.round(performance.now() - started);
    if (ms > SLOW_PASS_MS) log().warn({ ms }, `${name} pass was slow`);
    if (!stopped) {
      timer = setTimeout(() => (running = tick()), intervalMs);
      timer.unref();
    }
  };
  running = tick();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
