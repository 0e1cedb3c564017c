import type { StoreStatus } from "../../db/rows/ingest";
import { summarize, type BatchReply, type Decoded, type ItemResult } from "./batch";
import { EVENT_KINDS } from "./events";

/** Per event kind (or "unknown": not JSON, no kind, a kind we do not know), how many items were accepted, duplicate or rejected. */
export type IngestTally = Record<string, { accepted: number; duplicate: number; rejected: number }>;

const KINDS = new Set<string>(EVENT_KINDS);

/** The kind of a decoded item as a metrics label. */
export function kindLabel(value: unknown): string {
  const kind = typeof value === "object" && value !== null ? (value as { kind?: unknown }).kind : undefined;
  return typeof kind === "string" && KINDS.has(kind) ? kind : "unknown";
}

/** Tally item results by the kind of each item (kinds[i] belongs to results[i]). */
export function tallyByKind(kinds: readonly string[], results: readonly ItemResult[]): IngestTally {
  const tally: IngestTally = {};
  for (let i = 0; i < results.length; i++) {
    const t = (tally[kinds[i] ?? "unknown"] ??= { accepted: 0, duplicate: 0, rejected: 0 });
    t[results[i]!.status]++;
  }
  return tally;
}

/**
 * The reply to a body and its tally by kind, once its valid events were stored: stored[i] is the outcome of the event
 * in results' slot slots[i] (either engine's store answers the same outcomes).
 */
export function answerBatch(
  decoded: readonly Decoded[],
  slots: readonly number[],
  results: ItemResult[],
  stored: readonly StoreStatus[],
): { reply: BatchReply; tally: IngestTally } {
  for (let i = 0; i < stored.length; i++) {
    const r = results[slots[i]!]!;
    const st = stored[i]!;
    if (typeof st === "string") r.status = st;
    else
      Object.assign(r, {
        status: "rejected",
        code: st.code,
        error: r.line === undefined ? st.error : `line ${r.line}: ${st.error}`,
      });
  }
  return {
    reply: summarize(results),
    tally: tallyByKind(
      decoded.map((d) => kindLabel(d.value)),
      results,
    ),
  };
}
