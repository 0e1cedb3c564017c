import type { Db } from "../../db/client";
import { latestPreview } from "../../db/queries/previews";

export type Prediction = {
  hit_rate: number | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  window: { from: number; to: number };
  computed_at: number;
};

/** The newest stored preview of this policy content (its candidate side), for the impact panel; null: never previewed. */
export function latestPredictionFor(db: Db, kind: string, contentHash: string): Prediction | null {
  const row = latestPreview(db, kind, contentHash);
  if (!row) return null;
  return {
    hit_rate: row.hitRate,
    ttft_p50_ms: row.ttftP50Ms,
    ttft_p95_ms: row.ttftP95Ms,
    window: { from: row.windowFrom, to: row.windowTo },
    computed_at: row.computedAt,
  };
}
