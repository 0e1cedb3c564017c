import { asc, eq } from "drizzle-orm";
import { assembleChain, decodeHashes, type ChainLink } from "../codecs/chains";
import type { Db } from "../sqlite/client";
import { requests as pgRequests } from "../pg/schema";
import { sessionChains, type ChainStrings } from "../sqlite/chains";
import type { Store } from "./store";

// A session's full hash chains for the export's `?chains=1`, on either engine, keyed by request_id (latest row wins).
// SQLite's rows may extend earlier rows, refer to KV events' lists or hold the pre-binary decimal text: its reader is
// db/sqlite/chains.ts. PostgreSQL's ingest stores each chain whole (chain_base null); a row naming a base is still
// assembled through it, so a PostgreSQL row written in the compact form later reads back the same.

export type { ChainStrings };

const EMPTY = Buffer.alloc(0);

/** Every request of a session with its full chains as decimal strings, keyed by request_id. */
export async function sessionChainsOf(s: Store, sessionId: string): Promise<Map<string, ChainStrings>> {
  if (s.engine === "sqlite") return sessionChains(s.db as unknown as Db, sessionId);
  const r = pgRequests;
  const rows = await s.db
    .select({
      id: r.id,
      requestId: r.requestId,
      base: r.chainBase,
      seqShared: r.seqShared,
      localShared: r.localShared,
      seqCount: r.seqCount,
      localCount: r.localCount,
      seq: r.sequenceHashes,
      local: r.localHashes,
    })
    .from(r)
    .where(eq(r.sessionId, sessionId))
    .orderBy(asc(r.rid));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const built = new Map<string, { seq: Buffer | null; local: Buffer | null }>();
  const chain = (row: (typeof rows)[number], which: "seq" | "local"): Buffer | null => {
    const count = which === "seq" ? row.seqCount : row.localCount;
    const tail = (which === "seq" ? row.seq : row.local) ?? null;
    // Rows without a count hold their chain whole (or none).
    if (count === null) return row.base === null ? tail : null;
    const link = (x: (typeof rows)[number]): ChainLink => ({
      base: x.base,
      shared: which === "seq" ? x.seqShared : x.localShared,
      tail: (which === "seq" ? x.seq : x.local) ?? EMPTY,
    });
    return assembleChain(link(row), count, (id) => {
      const known = built.get(id)?.[which];
      if (known) return known;
      const b = byId.get(id);
      return b && link(b);
    });
  };
  const out = new Map<string, ChainStrings>();
  for (const row of rows) {
    const c = { seq: chain(row, "seq"), local: chain(row, "local") };
    built.set(row.id, c);
    out.set(row.requestId, {
      sequence_hashes: c.seq && decodeHashes(c.seq),
      local_hashes: c.local && decodeHashes(c.local),
    });
  }
  return out;
}
