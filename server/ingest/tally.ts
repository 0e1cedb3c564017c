import type { ItemResult } from "./batch";
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
