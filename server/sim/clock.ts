// Pacing of simulated time against the wall clock: live at `speed` x real time, or as fast as
// possible. Pure given the wall-clock function passed in.

export type Pace = { kind: "fast" } | { kind: "live"; speed: number };

export class Pacer {
  private wall0: number;

  constructor(
    readonly pace: Pace,
    readonly simStart: number,
    private wallNow: () => number = () => performance.now(),
  ) {
    this.wall0 = wallNow();
  }

  /** Simulated time (Unix ms) the simulation may advance to now; Infinity when fast. */
  target(): number {
    if (this.pace.kind === "fast") return Infinity;
    return this.simStart + (this.wallNow() - this.wall0) * this.pace.speed;
  }
}
