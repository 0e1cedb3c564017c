import { errorMessage, log } from "../observability/logger";

/**
 * Run `pass` now and then intervalMs after each pass ends (never two at once); a pass that throws is logged as
 * `<name> pass failed` and the next one runs on time. Returns a stop function (a pass in flight finishes, no next).
 */
export function startPasses(name: string, pass: () => Promise<unknown>, intervalMs: number): () => void {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const tick = async () => {
    try {
      await pass();
    } catch (err) {
      log().error({ err: errorMessage(err) }, `${name} pass failed`);
    }
    if (!stopped) {
      timer = setTimeout(() => void tick(), intervalMs);
      timer.unref();
    }
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
