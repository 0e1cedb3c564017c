import { ingestBusySignal } from "./busy-signal";
import type { IngestOutcome } from "./runner";
import type { Sender } from "./sender";
import { bodyForThread, type PoolReply, type ThreadPool } from "../thread-pool";

/**
 * Post one ingest body to the least busy thread of an ingest pool (SQLite's or PostgreSQL's), counted on the busy
 * signal until its reply (the pool's onEnd ends it). `fields` adds what that pool's threads also take, made when the
 * body is posted. The bytes are moved to the thread, unusable here afterwards.
 */
export function sendBody<M extends PoolReply>(
  pool: ThreadPool<IngestOutcome, M>,
  body: string | Uint8Array,
  contentType: string,
  sender: Sender | undefined,
  fields: () => Record<string, unknown> = () => ({}),
): Promise<IngestOutcome> {
  return pool.send((id) => {
    ingestBusySignal().begin();
    const { text, transfer } = bodyForThread(body);
    return { value: { id, ...fields(), text, contentType, sender }, transfer };
  });
}
