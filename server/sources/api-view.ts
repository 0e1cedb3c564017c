import type { SourceView } from "./summary";

/** GET /api/sources, one entry per source, snake_case for scripts; times are Unix ms (null before the first). */
export function sourcesApiBody(views: SourceView[], now: number) {
  return {
    generated_at: now,
    sources: views.map((v) => ({
      id: v.id,
      kind: v.kind,
      name: v.name,
      address: v.address,
      enabled: v.enabled,
      state: v.state,
      last_success_at: v.lastSuccessAt,
      last_error_at: v.lastErrorAt,
      last_error: v.lastError,
      error_count: v.errorCount,
      series: v.series,
      events_total: v.eventsTotal,
      last_duration_ms: v.durationMs,
      missing_metrics: v.missing,
      renamed_metrics: v.renamed,
      sequence_gaps: v.gaps,
    })),
  };
}
