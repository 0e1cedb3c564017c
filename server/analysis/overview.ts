// Cluster KPIs from plain rows. Pure: no data is null (a gap), never 0.
import type { WorkerSample } from "../../db/rows/overview";
export type { WorkerSample } from "../../db/rows/overview";

/** Token-weighted hit rate: hit tokens over queried tokens; null when nothing was queried. */
export function hitRate(hitTokens: number, queryTokens: number): number | null {
  return queryTokens > 0 ? hitTokens / queryTokens : null;
}

/** Cluster KV utilization: total active over total capacity of the latest samples; null without capacity. */
export function kvUtilization(samples: readonly WorkerSample[]): number | null {
  let active = 0;
  let total = 0;
  for (const s of samples) {
    active += s.kvActiveBlocks;
    total += s.kvTotalBlocks;
  }
  return total > 0 ? active / total : null;
}

/** Count of workers per role; workers seen only through stats count as "unknown". */
export function workersByRole(samples: readonly WorkerSample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    const role = s.role ?? "unknown";
    out[role] = (out[role] ?? 0) + 1;
  }
  return out;
}
