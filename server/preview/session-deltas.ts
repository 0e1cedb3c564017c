import type { RecordedTurn, SessionDelta } from "./types";

// The sessions whose cached tokens change most between two replay runs (turns both counted: cached ≥ 0). Pure.

/** Top `limit` sessions by |candidate − baseline cached tokens| over turns both runs counted, largest first; ties by id. */
export function compareSessions(
  turns: readonly RecordedTurn[],
  baseline: Int32Array,
  candidate: Int32Array,
  limit: number,
): SessionDelta[] {
  const by = new Map<string, { input: number; base: number; cand: number }>();
  turns.forEach((t, i) => {
    if (baseline[i]! < 0 || candidate[i]! < 0) return;
    const s = by.get(t.sessionId) ?? { input: 0, base: 0, cand: 0 };
    s.input += t.inputTokens;
    s.base += baseline[i]!;
    s.cand += candidate[i]!;
    by.set(t.sessionId, s);
  });
  return [...by]
    .map(([id, s]) => ({
      session_id: id,
      baseline_hit_rate: s.input ? s.base / s.input : null,
      candidate_hit_rate: s.input ? s.cand / s.input : null,
      cached_tokens_delta: s.cand - s.base,
    }))
    .filter((s) => s.cached_tokens_delta !== 0)
    .sort(
      (a, b) =>
        Math.abs(b.cached_tokens_delta) - Math.abs(a.cached_tokens_delta) || a.session_id.localeCompare(b.session_id),
    )
    .slice(0, limit);
}
