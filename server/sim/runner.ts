import { Pacer, type Pace } from "./clock";

// Drives a simulation against a pace until the end time (or forever), yielding to the event loop
// between steps so the control API and delivery keep running. Fast runs advance in fixed
// simulated steps so the output does not depend on how fast the machine is.

/** What a run drives: one simulation's controller (controller.ts) or a fleet's (fleet.ts). */
export interface Driven {
  /** Simulated time reached (Unix ms). */
  readonly now: number;
  /** Apply queued policy changes, then run up to `t`. */
  advance(t: number): void;
  /** Apply queued policy changes now. */
  drain(): void;
  /** Called when a policy change is queued (a paced run waiting on the clock wakes up). */
  onPending(wake: (() => void) | null): void;
}

export type RunOptions = {
  controller: Driven;
  pace: Pace;
  /** Unix ms to stop at, or null to run until stopped. */
  endMs: number | null;
  /** Awaited between fast steps: delivery backpressure. */
  backpressure?: () => Promise<void>;
  signal?: AbortSignal;
  /** Stop early once this says so (checked between steps): a replayed trace that has finished. */
  done?: () => boolean;
  /** Simulated ms per fast step. */
  stepMs?: number;
  /** Wall ms between live steps. */
  tickMs?: number;
};

/** Run to the end time or until aborted; returns the simulated time reached. */
export async function runSimulation(opts: RunOptions): Promise<number> {
  const { controller, pace, endMs } = opts;
  const sim = controller;
  const pacer = new Pacer(pace, sim.now);
  const end = endMs ?? Infinity;
  const step = opts.stepMs ?? 10_000;
  const tick = opts.tickMs ?? 100;
  while (sim.now < end && !opts.signal?.aborted && !opts.done?.()) {
    if (pace.kind === "fast") {
      controller.advance(Math.min(end, sim.now + step));
      if (opts.backpressure) await opts.backpressure();
      await yieldNow();
    } else {
      controller.advance(Math.min(end, Math.max(sim.now, pacer.target())));
      await sleep(tick, controller, opts.signal);
    }
  }
  controller.drain();
  return sim.now;
}

function yieldNow(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sleep(ms: number, controller: Driven, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      controller.onPending(null);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    controller.onPending(done);
    signal?.addEventListener("abort", done, { once: true });
  });
}
