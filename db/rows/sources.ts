// What a source reported on a pass, as the source registry stores it (db/sqlite/source-registry.ts).

/**
 * What one successful pass saw. events: events submitted in this pass (added to the running total); series: series
 * in the last scrape (replaces); durationMs: this pass's duration; missing/renamed: metric names expected but absent,
 * and "old → new" renames detected (both replace); gaps: sequence gaps found in this pass (added); detail: a JSON object, or a short note shown as { note }.
 */
export type SourceSeen = {
  events?: number;
  series?: number;
  durationMs?: number;
  missing?: string[];
  renamed?: string[];
  gaps?: number;
  detail?: Record<string, unknown> | string;
};
