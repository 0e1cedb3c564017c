import type { Db } from "../../db/client";
import type { PolicyKind } from "../control/policies";

/** A stored preview result for one policy content: predicted token-weighted hit rate (0–1) and TTFT (ms). */
export type Prediction = {
  hit_rate: number | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  window: { from: number; to: number };
  computed_at: number;
};

/** The newest preview computed for this content (see policyContentHash), or null when none was run. */
export function latestPredictionFor(_db: Db, _kind: PolicyKind, _contentHash: string): Prediction | null {
  return null; // replaced by the preview engine's store
}
