// The shape both attribution loops share (SQLite's and PostgreSQL's): a step run again and again until stopped, each
// followed by the pause it asks for, and an hourly task between steps.

export type StepLoop = { stop: () => Promise<void> };

/**
 * Run `step` until stop() is called, pausing the ms it resolves to after each run (0: run again at once, after a turn
 * of the event loop), and `hourly` after a step once an hour has passed since the last (or since the start). stop()
 * resolves once the step under way has ended.
 */
export function startStepLoop(
  step: () => Promise<number> | number,
  hourly: () => Promise<void> | void,
  now: () => number = Date.now,
): StepLoop {
  let stopped = false;
  let lastHourly = now();
  const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const done = (async () => {
    while (!stopped) {
      const wait = await step();
      if (now() - lastHourly > 3_600_000) {
        lastHourly = now();
        await hourly();
      }
      await pause(wait);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}
