import { HASH_BYTES } from "../codecs/chains";
import type { Db } from "./client";
import { chainsOf } from "./chains";

// What retention does to request chains before deleting requests (db/sqlite/retention.ts).

/**
 * Store whole (no base) every row that extends one of `ids` and is not itself among them, so `ids` can be deleted
 * without breaking the chains of the turns after them. Call in the transaction that deletes `ids`. Returns rows rebased.
 */
export function rebaseDependents(db: Db, ids: readonly string[]): number {
  const c = db.$client;
  const dependents = c.prepare("SELECT id FROM requests WHERE chain_base = ?").pluck();
  const store = c.prepare(
    "UPDATE requests SET sequence_hashes = ?, local_hashes = ?, chain_base = NULL, seq_shared = 0, local_shared = 0, local_refs = NULL, seq_refs = NULL, seq_count = ?, local_count = ? WHERE id = ?",
  );
  const gone = new Set(ids);
  let n = 0;
  for (const id of ids) {
    for (const d of dependents.all(id) as string[]) {
      if (gone.has(d)) continue;
      const whole = chainsOf(db, d);
      const count = (b: Buffer | null | undefined) => (b ? b.byteLength / HASH_BYTES : null);
      store.run(whole?.seq ?? null, whole?.local ?? null, count(whole?.seq), count(whole?.local), d);
      n++;
    }
  }
  return n;
}
