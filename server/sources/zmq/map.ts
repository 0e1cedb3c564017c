import { MAX_HASHES, type StorageTier, type TelemetryEventInput } from "../../ingest/events";
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

/** What mapping skipped: events of a medium that names no known tier, by medium. */
export type MapResult = { events: TelemetryEventInput[]; skippedMedia: Record<string, number> };

const TIER_OF: Record<string, StorageTier> = {
  GPU: "device",
  DEVICE: "device",
  CPU: "host",
  HOST: "host",
  HOSTPINNED: "host",
  DISK: "disk",
  EXTERNAL: "shared",
  SHARED: "shared",
};

/**
 * The storage tier a KV event's medium names: vLLM's GPU/CPU/DISK and Dynamo's device/host_pinned/disk/external
 * (case and separators ignored); none named (older publishers, SGLang) is device; any other medium is null (refused).
 */
export function tierOfMedium(medium: string | null): StorageTier | null {
  if (medium === null) return "device";
  return TIER_OF[medium.toUpperCase().replace(/[^A-Z]/g, "")] ?? null;
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
    const tier = tierOfMedium(e.medium);
    if (tier === null) {
      const key = e.medium!;
      skippedMedia[key] = (skippedMedia[key] ?? 0) + 1;
      continue;
    }
    if (e.type === "cleared") {
      // The normalized kv.cleared drops the worker's device cache; a lower tier's reset is not one.
      if (tier === "device") events.push({ ...base, id: prefix + n++, kind: "kv.cleared" });
      continue;
    }
    const onTier = tier === "device" ? {} : { storage_tier: tier };
    let parent = e.type === "stored" ? e.parentHash : null;
    for (let at = 0; at < e.blockHashes.length; at += MAX_HASHES) {
      const part = e.blockHashes.slice(at, at + MAX_HASHES);
      if (e.type === "stored") {
        events.push({
          ...base,
          id: prefix + n++,
          kind: "kv.stored",
          block_hashes: part,
          parent_hash: parent,
          ...onTier,
        });
        parent = part[part.length - 1]!;
      } else {
        events.push({
          ...base,
          id: prefix + n++,
          kind: "kv.removed",
          block_hashes: part,
          reason: "capacity",
          ...onTier,
        });
      }
    }
  }
  return { events, skippedMedia };
}
