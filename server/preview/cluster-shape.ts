import type { WorkerRole } from "../sim/types";
import type { ClusterOverride, ObservedWorker, RecordedTurn } from "./types";

// The cluster the replay models: the caller's override, else the workers observed in the window, else a stated guess.

export type ClusterShape = {
  workers: Partial<Record<WorkerRole, number>>;
  kvBlocks: Record<WorkerRole, number>;
  blockSize: number;
  source: "observed" | "override" | "assumed";
  notes: string[];
};

export const ASSUMED_KV_BLOCKS = 10_500;
export const ASSUMED_BLOCK_SIZE = 64;

/** Worker counts per role and KV blocks per worker for the replay (pure). */
export function clusterShape(
  observed: readonly ObservedWorker[],
  turns: readonly RecordedTurn[],
  override: ClusterOverride | null,
): ClusterShape {
  const notes: string[] = [];
  if (override) {
    notes.push(
      `capacities came from the cluster override: ${override.workers} aggregated workers of ${override.kv_total_blocks} KV blocks, ${override.block_size} tokens per block`,
    );
    const kv = override.kv_total_blocks;
    return {
      workers: { aggregated: override.workers },
      kvBlocks: { aggregated: kv, prefill: kv, decode: kv },
      blockSize: override.block_size,
      source: "override",
      notes,
    };
  }
  const count: Partial<Record<WorkerRole, number>> = {};
  const kv: Partial<Record<WorkerRole, number>> = {};
  const sizes = new Map<number, number>();
  for (const w of observed) {
    count[w.role] = (count[w.role] ?? 0) + 1;
    if (w.kvTotalBlocks !== null) kv[w.role] = Math.max(kv[w.role] ?? 0, w.kvTotalBlocks);
    if (w.blockSize !== null) sizes.set(w.blockSize, (sizes.get(w.blockSize) ?? 0) + 1);
  }
  if ((count.prefill ?? 0) > 0 !== (count.decode ?? 0) > 0) {
    const n = (count.prefill ?? 0) + (count.decode ?? 0) + (count.aggregated ?? 0);
    notes.push(`prefill and decode workers were not both observed: ${n} aggregated workers assumed`);
    kv.aggregated = Math.max(kv.aggregated ?? 0, kv.prefill ?? 0, kv.decode ?? 0) || undefined;
    count.aggregated = n;
    delete count.prefill;
    delete count.decode;
  }
  let source: ClusterShape["source"] = "observed";
  if (Object.keys(count).length === 0) {
    count.aggregated = 1;
    source = "assumed";
    notes.push("no worker was observed in the window: one aggregated worker assumed");
  }
  for (const role of Object.keys(count) as WorkerRole[]) {
    if (kv[role] === undefined) {
      notes.push(`KV capacity of ${role} workers unknown: ${ASSUMED_KV_BLOCKS} blocks assumed`);
      if (source === "observed") source = "assumed";
    }
  }
  let blockSize = [...sizes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  if (blockSize === null) blockSize = turns.find((t) => t.blockSize !== null)?.blockSize ?? null;
  if (blockSize === null) {
    blockSize = ASSUMED_BLOCK_SIZE;
    notes.push(`block size unknown: ${ASSUMED_BLOCK_SIZE} tokens assumed`);
  }
  const fill = (role: WorkerRole) => kv[role] ?? ASSUMED_KV_BLOCKS;
  return {
    workers: count,
    kvBlocks: { aggregated: fill("aggregated"), prefill: fill("prefill"), decode: fill("decode") },
    blockSize,
    source,
    notes,
  };
}
