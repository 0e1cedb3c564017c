// Sequence tracking for one publisher: every batch carries the next uint64; a jump forward means batches were lost.

/** The next sequence expected, or null before the first message (nothing before it can be judged). */
export type SequenceState = { next: bigint | null };

/**
 * What one sequence number says: `first` (nothing seen yet), `next` (in order), `gap` (missed `missed` batches,
 * from..to inclusive) or `restart` (not after the last one: a PUB socket never repeats or reorders, so the
 * publisher restarted and counts from 0 again).
 */
export type SequenceStep =
  | { kind: "first" | "next" }
  | { kind: "gap"; from: bigint; to: bigint; missed: bigint }
  | { kind: "restart"; expected: bigint };

/** Advance the tracker by one received sequence number (pure: returns the new state). */
export function advance(state: SequenceState, seq: bigint): { state: SequenceState; step: SequenceStep } {
  const after = { next: seq + 1n };
  if (state.next === null) return { state: after, step: { kind: "first" } };
  if (seq === state.next) return { state: after, step: { kind: "next" } };
  if (seq > state.next)
    return { state: after, step: { kind: "gap", from: state.next, to: seq - 1n, missed: seq - state.next } };
  return { state: after, step: { kind: "restart", expected: state.next } };
}

/** A one-line operator message for a gap. */
export function gapMessage(endpoint: string, step: { from: bigint; to: bigint; missed: bigint }): string {
  const range = step.from === step.to ? `seq ${step.from}` : `seq ${step.from}–${step.to}`;
  const n = step.missed === 1n ? "1 batch" : `${step.missed} batches`;
  return `sequence gap from ${endpoint}: missed ${n} (${range}); blocks stored or removed in them are unknown until the next clear`;
}
