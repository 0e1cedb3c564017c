import { MAX_HASHES, type TelemetryEventInput } from "../../ingest/events";
import type { KvBatch } from "./decode";

export type MapContext = {
  /** The configured source id (ids are prefixed with it so two sources never collide). */
  sourceId: string;
  workerId: string;
  seq: bigint;
  /** When the message arrived (Unix ms): the event time when the batch carries no usable ts. */
  receivedAt: number;
  /** The sequence went back: a new publisher process, whose cache starts empty (a kv.cleared comes first). */
  restarted?: boolean;
};

/** What mapping skipped: events of a cache tier other than the GPU's, by medium. */
export type MapResult = { events: TelemetryEventInput[]; skippedMedia: Record<string, number> };

/** Media taken as the worker's cache: vLLM's GPU tier, or events that do not name one (older publishers, SGLang). */
export function isDeviceMedium(medium: string | null): boolean {
  return medium === null || medium.toUpperCase() === "GPU";
}

/**
 * Map one decoded batch to kv.stored / kv.removed / kv.cleared for the configured worker. Ids are
 * `zmq:<source>:<seq>:<batch ts µs>:<n>`: a replayed batch maps to the same ids (ingest drops it as a duplicate)
 * while a restarted publisher, whose sequence starts again at 0, gets new ones. A BlockStored with more than
 * MAX_HASHES hashes is split in order, each part's parent being the previous part's last block. BlockRemoved is
 * reason "capacity": vLLM and SGLang evict a cached block only to reuse its memory (a reset is AllBlocksCleared).
 */
export function mapBatch(batch: KvBatch, ctx: MapContext): MapResult {
  const ts = batch.tsMs ?? ctx.receivedAt;
  const stamp = batch.tsMs === null ? `r${ctx.receivedAt}` : String(Math.round(batch.tsMs * 1_000));
  const prefix = `zmq:${ctx.sourceId}:${ctx.seq}:${stamp}:`;
  const base = { ts, source: ctx.sourceId, worker_id: ctx.workerId };
  const events: TelemetryEventInput[] = [];
  const skippedMedia: Record<string, number> = {};
  let n = 0;
  if (ctx.restarted) events.push({ ...base, id: prefix + "restart", kind: "kv.cleared" });
  for (const e of batch.events) {
    if (!isDeviceMedium(e.medium)) {
      const key = e.medium!;
      skippedMedia[key] = (skippedMedia[key] ?? 0) + 1;
      continue;
    }
    if (e.type === "cleared") {
      events.push({ ...base, id: prefix + n++, kind: "kv.cleared" });
      continue;
    }
    let parent = e.type === "stored" ? e.parentHash : null;
    for (let at = 0; at < e.blockHashes.length; at += MAX_HASHES) {
      const part = e.blockHashes.slice(at, at + MAX_HASHES);
      if (e.type === "stored") {
        events.push({ ...base, id: prefix + n++, kind: "kv.stored", block_hashes: part, parent_hash: parent });
        parent = part[part.length - 1]!;
      } else {
        events.push({ ...base, id: prefix + n++, kind: "kv.removed", block_hashes: part, reason: "capacity" });
      }
    }
  }
  return { events, skippedMedia };
}
