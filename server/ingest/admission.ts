import { INGEST_MAX_IN_FLIGHT } from "../../lib/memory-bounds";
import { AppError } from "../errors";

// Bodies POST /api/ingest holds at once (read, queued for a thread or being stored): each can be 8 MiB, so a backlog
// of senders must not queue without limit in the dashboard's memory. One past the limit is answered 503 with
// Retry-After and is not acknowledged: its sender keeps it and sends it again.

/** Seconds a refused sender waits before sending again. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** Counts the bodies held; one counter per route (the route module keeps one). */
export class Admission {
  private held = 0;

  constructor(readonly limit = INGEST_MAX_IN_FLIGHT) {}

  get inFlight(): number {
    return this.held;
  }

  /** Take a place, or throw UNAVAILABLE (503, Retry-After) when all are taken; the returned function gives it back. */
  enter(): () => void {
    if (this.held >= this.limit)
      throw new AppError(
        "UNAVAILABLE",
        `the dashboard holds ${this.limit} ingest batches already; nothing of this one was stored, send it again`,
        { retry_after: BUSY_RETRY_AFTER_SECONDS },
      );
    this.held++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.held--;
    };
  }
}
