import { and, desc, eq, lte } from "drizzle-orm";
import type { Store } from "./store";

// The few reads and writes the trace importer needs, on either engine: the last KV sample of a worker (load samples
// carry it forward) and the watched directory's memory of imported files (one settings row per source).

export type KvState = {
  kv_active_blocks: number;
  kv_total_blocks: number;
  prefix_query_tokens: string;
  prefix_hit_tokens: string;
};

/** The newest KV sample of a worker at or before ts (Unix ms), or null when the worker has none. */
export async function lastKvState(s: Store, workerId: string, ts: number): Promise<KvState | null> {
  const w = s.t.workerStats;
  const [row] = await s.db
    .select({
      kv_active_blocks: w.kvActiveBlocks,
      kv_total_blocks: w.kvTotalBlocks,
      prefix_query_tokens: w.prefixQueryTokens,
      prefix_hit_tokens: w.prefixHitTokens,
    })
    .from(w)
    .where(and(eq(w.workerId, workerId), lte(w.ts, ts)))
    .orderBy(desc(w.ts))
    .limit(1);
  return row
    ? { ...row, prefix_query_tokens: String(row.prefix_query_tokens), prefix_hit_tokens: String(row.prefix_hit_tokens) }
    : null;
}

/** The stored value under a settings key, or null. */
export async function readSetting(s: Store, key: string): Promise<string | null> {
  const t = s.t.settings;
  const [row] = await s.db.select({ value: t.value }).from(t).where(eq(t.key, key)).limit(1);
  return row?.value ?? null;
}

/** Store (or replace) a settings value; now is Unix ms. */
export async function writeSetting(s: Store, key: string, value: string, now: number): Promise<void> {
  return s.tx(async (x) => {
    const t = x.t.settings;
    await x.db
      .insert(t)
      .values({ key, value, updatedAt: now })
      .onConflictDoUpdate({ target: t.key, set: { value, updatedAt: now } });
  });
}
