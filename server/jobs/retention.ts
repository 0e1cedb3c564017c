import type { Db } from "../../db/client";
import { deleteRawBefore } from "../../db/queries/retention";

/** The oldest raw timestamp (Unix ms) to keep at `now` for a retention of `hours`. */
export function retentionCutoff(now: number, hours: number): number {
  return now - Math.round(hours * 3_600_000);
}

/** Sweep raw telemetry older than the retention now and then every intervalSeconds; returns a stop function. */
export function startRetentionSweeper(db: Db, hours: number, intervalSeconds: number, now: () => number = Date.now): () => void {
  const sweep = () => {
    try {
      const deleted = deleteRawBefore(db, retentionCutoff(now(), hours));
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      if (total > 0) console.log(`retention: deleted ${total} raw rows older than ${hours} h`);
    } catch (err) {
      console.error("retention sweep failed:", err instanceof Error ? err.message : String(err));
    }
  };
  sweep();
  const timer = setInterval(sweep, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
