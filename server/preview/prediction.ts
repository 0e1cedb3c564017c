import { latestPreview } from "../../db/store/previews";
import type { Store } from "../../db/store/store";
import type { PolicyKind } from "../../lib/policies/policies";

/** A stored preview result for one policy content: predicted token-weighted hit rate (0–1) and TTFT (ms). */
export type Prediction = {
  hit_rate: number | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  window: { from: number; to: number };
  computed_at: number;
};

/** The newest preview computed for this content (see policyContentHash), its candidate side; null when none was run. */
export async function latestPredictionFor(
  s: Store,
  kind: PolicyKind | string,
  contentHash: string,
): Promise<Prediction | null> {
  const row = await latestPreview(s, kind, contentHash);
  if (!row) return null;
  return {
    hit_rate: row.hitRate,
    ttft_p50_ms: row.ttftP50Ms,
    ttft_p95_ms: row.ttftP95Ms,
    window: { from: row.windowFrom, to: row.windowTo },
    computed_at: row.computedAt,
  };
}
