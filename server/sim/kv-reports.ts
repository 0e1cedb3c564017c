import type { CoreHost } from "./cluster";
import { ms } from "./cluster";
import { removedEvent, storedEvent } from "./event-builders";
import type { SimRequest } from "./types";
import type { SimWorker } from "./worker";

// What a worker's pool did, told as KV events: stores as kv.stored runs (one class, consecutive blocks), removals as
// kv.removed lists by reason, each at most MAX_HASHES_PER_EVENT hashes. A sink that takes no kv.removed events is told
// per-reason counts instead (CoreHost.removalsCounted).

const MAX_HASHES_PER_EVENT = 16_384;

/** kv.stored events for the `count` blocks a request just stored (their positions in `created`), when wanted. */
export function reportStored(
  host: CoreHost,
  w: SimWorker,
  req: SimRequest,
  created: readonly number[],
  count: number,
): void {
  if (!host.wants("kv.stored")) return;
  let start = 0;
  for (let k = 1; k <= count; k++) {
    const i = created[k - 1]!;
    const next = k < count ? created[k]! : -1;
    const cls = req.classes[req.segments[i]!]!;
    const breaks =
      next < 0 || next !== i + 1 || req.classes[req.segments[next]!] !== cls || k - start >= MAX_HASHES_PER_EVENT;
    if (!breaks) continue;
    host.emit(storedEvent(w.id, req, created[start]!, i + 1, cls.name, ms(host.now)));
    start = k;
  }
}

/**
 * The worker's removals since the last report: kv.removed events when its pool keeps the hashes (`hashes`), else
 * counts. Returns whether hashes were drained (lower tiers then take their offloads).
 */
export function reportRemoved(host: CoreHost, w: SimWorker, hashes: boolean): boolean {
  if (!hashes) {
    const counts = w.pool.drainRemovedCounts();
    if (counts.length > 0) host.removalsCounted(w.id, counts);
    return false;
  }
  const drained = w.pool.drainRemovedHashes();
  for (const [reason, list] of drained) {
    for (let i = 0; i < list.length; i += MAX_HASHES_PER_EVENT) {
      const part =
        list.length <= MAX_HASHES_PER_EVENT ? list : list.slice(i, Math.min(list.length, i + MAX_HASHES_PER_EVENT));
      host.emit(removedEvent(w.id, part, reason, ms(host.now)));
    }
  }
  return drained.length > 0;
}
