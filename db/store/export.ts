import { asc, eq } from "drizzle-orm";
import { decodeHashes } from "../codecs/chains";
import type { Db } from "../sqlite/client";
import { requests as pgRequests } from "../pg/schema";
import { wholeChainsPg } from "../pg/chains";
import type { PgDb } from "../pg/client";
import { sessionChains, type ChainStrings } from "../sqlite/chains";
import type { Store } from "./store";

// A session's full hash chains for the export's `?chains=1`, on either engine, keyed by request_id (latest row wins).
// SQLite's rows may extend earlier rows, refer to KV events' lists or hold the pre-binary decimal text: its reader is
// db/sqlite/chains.ts. PostgreSQL's rows hold their chains whole or after a chain base's (db/pg/chains.ts): the
// session's rows are assembled here from one another.

export type { ChainStrings };

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
  const whole = await wholeChainsPg((s.db as unknown as PgDb).$client, rows);
  const out = new Map<string, ChainStrings>();
  for (const row of rows) {
    const c = whole.get(row.id)!;
    out.set(row.requestId, {
      sequence_hashes: c.seq && decodeHashes(c.seq),
      local_hashes: c.local && decodeHashes(c.local),
    });
  }
  return out;
}
