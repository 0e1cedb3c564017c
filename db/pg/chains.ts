import type postgres from "postgres";
import { assembleChain, type ChainLink } from "../codecs/chains";
import type { ChainMemo } from "../sqlite/chain-memo";

// PostgreSQL's request chains as stored. A turn whose prefix_of names an earlier request holds only its own hashes
// (the tails) after the first seq_shared / local_shared hashes of that request's chains (chain_base), as SQLite stores
// it without SQLite's runs and KV references; a row without a base holds its chains whole (every row written before
// 2026-12-07 does). Readers take whole chains from `wholeChainsPg`; retention stores a base's dependents whole before
// deleting it (`rebaseDependentsPg`).

/** A requests row's chain columns as stored. */
export type StoredChains = {
  id: string;
  base: string | null;
  seqShared: number;
  localShared: number;
  seqCount: number | null;
  localCount: number | null;
  seq: Buffer | null;
  local: Buffer | null;
};
export type WholeChains = { seq: Buffer | null; local: Buffer | null };

/** The SELECT list of StoredChains (a requests table aliased `prefix`, or unqualified with ""). */
export function storedChainColumns(prefix = ""): string {
  const p = prefix ? `${prefix}.` : "";
  return `${p}id, ${p}chain_base AS base, ${p}seq_shared AS "seqShared", ${p}local_shared AS "localShared",
    ${p}seq_count AS "seqCount", ${p}local_count AS "localCount", ${p}sequence_hashes AS seq, ${p}local_hashes AS local`;
}

/**
 * A transaction-scoped lock between ingest and retention: a batch that stores a row naming a base holds it shared,
 * retention's delete of requests holds it alone, so no row names a base between retention's rebase and its delete.
 */
export const CHAIN_BASE_LOCK = "hashtext('switchyard.chain_base')";

/** Ancestors walked per missing base at most: a longer walk is a cycle (refused by assembleChain) or damage. */
const MAX_DEPTH = 100_000;

/**
 * Every row on the base paths of `ids` (themselves included), stopping at a row whose base is in `known` (rows read
 * or held already): one recursive query, each step a primary-key lookup.
 */
async function ancestorsPg(q: postgres.Sql, ids: readonly string[], known: readonly string[]): Promise<StoredChains[]> {
  if (ids.length === 0) return [];
  return q.unsafe<StoredChains[]>(
    `WITH RECURSIVE a AS (
      SELECT ${storedChainColumns()}, 1 AS depth FROM requests WHERE id = ANY($1::text[])
      UNION ALL
      SELECT ${storedChainColumns("r")}, a.depth + 1 FROM a JOIN requests r ON r.id = a.base
      WHERE a.depth < ${MAX_DEPTH} AND NOT (a.base = ANY($2::text[]))
    ) SELECT id, base, "seqShared", "localShared", "seqCount", "localCount", seq, local FROM a`,
    [ids as string[], known as string[]],
    { prepare: false },
  );
}

/**
 * Whole chains of stored rows (any order), by row id. A base among `rows` or in `memo` is taken from there; others are
 * read (with their own bases) in one query. Each whole chain built replaces its base's in `memo` when given. Throws
 * when a base is missing (retention rebases dependents before it deletes, so a stored row never names a deleted one).
 */
export async function wholeChainsPg(
  q: postgres.Sql,
  rows: readonly StoredChains[],
  memo?: ChainMemo,
): Promise<Map<string, WholeChains>> {
  const byId = new Map<string, StoredChains>();
  for (const r of rows) byId.set(r.id, r);
  // Bases the memo holds now (taken out first: building these rows' chains puts more in it, which may push them out).
  const built = new Map<string, WholeChains>();
  const missing = new Set<string>();
  for (const r of rows) {
    if (r.base === null || byId.has(r.base) || built.has(r.base)) continue;
    const held = memo?.get(r.base);
    if (held) built.set(r.base, held);
    else missing.add(r.base);
  }
  if (missing.size > 0) {
    const known = [...byId.keys(), ...built.keys()];
    for (const r of await ancestorsPg(q, [...missing], known)) if (!byId.has(r.id)) byId.set(r.id, r);
  }
  const chain = (row: StoredChains, which: "seq" | "local"): Buffer | null => {
    const count = which === "seq" ? row.seqCount : row.localCount;
    const tail = which === "seq" ? row.seq : row.local;
    if (row.base === null) return tail;
    // Rows without a count hold their chain whole, or none when they name a base.
    if (count === null) return null;
    const link = (x: StoredChains): ChainLink => ({
      base: x.base,
      shared: which === "seq" ? x.seqShared : x.localShared,
      tail: (which === "seq" ? x.seq : x.local) ?? EMPTY,
    });
    return assembleChain(link(row), count, (id) => {
      const known = built.get(id)?.[which];
      if (known) return known;
      const b = byId.get(id);
      return b && (b.base === null ? (b[which] ?? EMPTY) : link(b));
    });
  };
  // Bases arrive before their dependents, so most are built first when rows are in arrival order (any order works).
  for (const r of rows) {
    const c = { seq: chain(r, "seq"), local: chain(r, "local") };
    built.set(r.id, c);
    // A turn's next turn names it, and rarely anything older: the memo keeps each trajectory's newest chain.
    if (memo) {
      if (r.base !== null) memo.delete(r.base);
      memo.set(r.id, c);
    }
  }
  return built;
}

const EMPTY = Buffer.alloc(0);

/**
 * Store whole every row naming one of the rows `ids` is about to delete, and not deleted with them, so the turns after
 * a deleted one keep their chains. Call in the transaction that deletes, holding CHAIN_BASE_LOCK alone. Returns how
 * many rows were rewritten.
 */
export async function rebaseDependentsPg(tx: postgres.Sql, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const dependents = await tx.unsafe<StoredChains[]>(
    `SELECT ${storedChainColumns()} FROM requests WHERE chain_base = ANY($1::text[]) AND NOT (id = ANY($1::text[]))`,
    [ids as string[]],
    { prepare: false },
  );
  if (dependents.length === 0) return 0;
  const whole = await wholeChainsPg(tx, dependents);
  for (const d of dependents) {
    const c = whole.get(d.id)!;
    await tx`UPDATE requests SET sequence_hashes = ${c.seq}, local_hashes = ${c.local}, chain_base = NULL,
      seq_shared = 0, local_shared = 0 WHERE id = ${d.id}`;
  }
  return dependents.length;
}
