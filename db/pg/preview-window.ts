import { and, asc, eq, gte, isNotNull, isNull, lt, or } from "drizzle-orm";
import { kvEvents, requests } from "./schema";
import type { FirstRunRow, StoredRunRow, WindowRequestRow } from "../rows/previews";
import { decodeAgentHints, decodePolicyVersions } from "../codecs/request-json";
import type { Store } from "../store/store";
import type { PgDb } from "./client";
import { wholeChainsPg } from "./chains";

// The recorded window the preview replays, read from PostgreSQL: the same rows db/sqlite/previews.ts reads from a
// SQLite file. PostgreSQL stores KV block lists whole (no block references) and a request's chains after its chain
// base's (db/pg/chains.ts: read whole here); SQLite's compact forms are decoded by its own reader. The workers query is written over the
// store's tables and runs on either engine.

const HASH = 8;

function pgOnly(s: Store): void {
  if (s.engine !== "pg") throw new Error("preview-window reads PostgreSQL's whole chains; SQLite's are compact");
}

/** Requests that arrived in [from, to), oldest first (arrival, then insertion), at most `limit`, each with its chain. */
export async function windowRequestsPg(
  s: Store,
  from: number,
  to: number,
  limit: number,
  clusterId = 0,
): Promise<WindowRequestRow[]> {
  pgOnly(s);
  const r = requests;
  const rows = await s.db
    .select({
      id: r.id,
      requestId: r.requestId,
      sessionId: r.sessionId,
      trajectoryId: r.trajectoryId,
      parentTrajectoryId: r.parentTrajectoryId,
      sessionType: r.sessionType,
      harness: r.harness,
      workerId: r.workerId,
      arrivedAt: r.arrivedAt,
      firstTokenAt: r.firstTokenAt,
      finishedAt: r.finishedAt,
      inputTokens: r.inputTokens,
      cachedTokens: r.cachedTokens,
      outputTokens: r.outputTokens,
      reasoningTokens: r.reasoningTokens,
      status: r.status,
      agentHints: r.agentHints,
      blockSize: r.blockSize,
      policyVersions: r.policyVersions,
      source: r.source,
      base: r.chainBase,
      seqShared: r.seqShared,
      localShared: r.localShared,
      seqCount: r.seqCount,
      localCount: r.localCount,
      seq: r.sequenceHashes,
      local: r.localHashes,
    })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), eq(r.clusterId, clusterId)))
    .orderBy(asc(r.arrivedAt), asc(r.rid))
    .limit(limit);
  const whole = await wholeChainsPg((s.db as unknown as PgDb).$client, rows);
  return rows.map(({ base: _b, seqShared: _s, localShared: _l, seqCount: _c, localCount: _n, ...row }) => {
    const { seq, local } = whole.get(row.id)!;
    const ownLocal = local && local.byteLength > 0 ? local : null;
    return {
      ...row,
      agentHints: decodeAgentHints(row.agentHints),
      policyVersions: decodePolicyVersions(row.policyVersions),
      chain: ownLocal ?? seq,
      chainIsLocal: ownLocal !== null,
      firstSeq: seq && seq.byteLength >= HASH ? seq.subarray(0, HASH) : null,
    };
  });
}

const deviceStore = () =>
  and(
    eq(kvEvents.op, "stored"),
    isNotNull(kvEvents.blockHashes),
    or(isNull(kvEvents.storageTier), eq(kvEvents.storageTier, "device")),
  );

/** A whole list's first and last hashes; null when it holds none. */
function ends(list: Buffer | null): { first: Buffer; last: Buffer } | null {
  if (list === null || list.length < HASH) return null;
  return { first: list.subarray(0, HASH), last: list.subarray(list.length - HASH) };
}

/** Device kv.stored events that start a chain (no parent) in [from, to), oldest first, at most `limit` (see SQLite's). */
export async function chainStartRunsPg(
  s: Store,
  from: number,
  to: number,
  limit: number,
  clusterId = 0,
): Promise<FirstRunRow[]> {
  pgOnly(s);
  const k = kvEvents;
  const rows = await s.db
    .select({
      hashes: k.blockHashes,
      blocks: k.blockCount,
      retentionClass: k.retentionClass,
      workerId: k.workerId,
      ts: k.ts,
    })
    .from(k)
    .where(and(gte(k.ts, from), lt(k.ts, to), isNull(k.parentHash), eq(k.clusterId, clusterId), deviceStore()))
    .orderBy(asc(k.ts), asc(k.idKey))
    .limit(limit);
  return rows.flatMap((r) => {
    const e = ends(r.hashes);
    return e ? [{ ...e, blocks: r.blocks, retentionClass: r.retentionClass, workerId: r.workerId, ts: r.ts }] : [];
  });
}

/** Device stores of one worker in [from, to) that continue `parent`, oldest first, at most `limit`. */
export async function storedRunsAfterPg(
  s: Store,
  workerId: string,
  parent: Buffer,
  from: number,
  to: number,
  limit: number,
): Promise<StoredRunRow[]> {
  pgOnly(s);
  const k = kvEvents;
  const rows = await s.db
    .select({ parent: k.parentHash, hashes: k.blockHashes, blocks: k.blockCount, retentionClass: k.retentionClass })
    .from(k)
    .where(and(eq(k.workerId, workerId), gte(k.ts, from), lt(k.ts, to), eq(k.parentHash, parent), deviceStore()))
    .orderBy(asc(k.ts), asc(k.idKey))
    .limit(limit);
  return rows.flatMap((r) => {
    const e = ends(r.hashes);
    return e ? [{ parent: r.parent!, last: e.last, blocks: r.blocks, retentionClass: r.retentionClass }] : [];
  });
}
