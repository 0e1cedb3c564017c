import type { Db } from "../../db/client";
import { deleteRawBefore } from "../../db/queries/retention";
import { errorMessage, log } from "../observability/logger";

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
      if (total > 0) log().info({ rows: total, hours }, `retention: deleted ${total} raw rows older than ${hours} h`);
    } catch (err) {
      log().error({ err: errorMessage(err) }, "retention sweep failed");
    }
  };
  sweep();
  const timer = setInterval(sweep, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
