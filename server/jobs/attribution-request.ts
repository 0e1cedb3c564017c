import type { Db } from "../../db/sqlite/client";
import {
  decisionOf,
  kvEventsAfter,
  kvLastInRange,
  kvLastInWindow,
  kvMaxRowid,
  previousTurnOf,
  policyVersionsAt,
  putCauses,
} from "../../db/sqlite/attribution";
import type { RequestRow } from "../../db/rows/attribution";
import { blockBytesOf, chainsOf } from "../../db/sqlite/attribution-chains";
import { IndexWriter, kvApplied, nameId, residenciesAt, type Residency } from "../../db/sqlite/attribution-index";
import { localSeenBefore, markLocalAll, markSeenAll, seenBefore, seenFirstAt } from "../../db/sqlite/attribution-seen";
import {
  attributeTurn,
  isDeviceResidency,
  recomputedBlocks,
  type Attribution,
  type BlockFacts,
  type TurnInput,
} from "../../lib/attribution";
import { minuteOf } from "../../lib/counters";
import { causesRowOf, retentionVersionOf } from "./attribution-causes";

// The attribution step's decisions (docs/architecture.md): which KV events change device residency, which facts a turn's
// recomputed blocks had at arrival, and what is stored for it. The index and its rows live in db/sqlite/attribution*.

/**
 * Apply up to `limit` KV events after those already applied to the in-memory index, up to kv_events rowid `upTo`
 * (default: all); returns how many were read.
 */
export function applyKvEvents(db: Db, limit: number, upTo?: number): number {
  const rows = kvEventsAfter(db, kvApplied(db), limit, upTo);
  const w = new IndexWriter(db);
  for (const r of rows) {
    if (!isDeviceResidency(r.tier)) {
      w.applied(r.rid);
      continue;
    }
    const worker = nameId(db, r.workerId);
    if (r.op === "cleared") w.cleared(worker, r.ts);
    else if (r.op === "stored") {
      const hashes = blockBytesOf(db, r);
      if (hashes) w.storedList(hashes, worker, r.ts);
    } else if (r.op === "removed") {
      const why = nameId(db, r.reason ?? "unknown");
      const hashes = blockBytesOf(db, r);
      if (hashes) w.removedList(hashes, worker, r.ts, why);
    }
    w.applied(r.rid);
  }
  return rows.length;
}

/** How far kv_events was looked at for kvNeededBy: up to time t, rows up to rowid `scanned`; `need` the answer so far. */
type KvHorizon = { t: number; scanned: number; need: number };
const horizons = new WeakMap<object, KvHorizon>();

/**
 * The kv_events rowid the index must have applied before a request that arrived at t (Unix ms) is judged: the last
 * event with ts ≤ t. Later events do not change residency at t (except through the MAX_INTERVALS cap, which they can
 * only make drop a block's older intervals sooner). Moves forward per connection: the events of the new time window
 * through the (ts, id_key) index, and events inserted since the last look whatever their time (a KV event sent late).
 */
export function kvNeededBy(db: Db, t: number): number {
  let h = horizons.get(db.$client);
  if (!h) horizons.set(db.$client, (h = { t: Number.MIN_SAFE_INTEGER, scanned: kvMaxRowid(db), need: 0 }));
  const max = kvMaxRowid(db);
  const upTo = Math.max(h.t, t);
  if (max > h.scanned) {
    h.need = Math.max(h.need, kvLastInRange(db, h.scanned, max, upTo) ?? 0);
    h.scanned = max;
  }
  if (upTo > h.t) {
    h.need = Math.max(h.need, kvLastInWindow(db, h.t, upTo) ?? 0);
    h.t = upTo;
  }
  return h.need;
}

/**
 * The first block in [from, to) whose sequence hash (halves hi[k], lo[k]) was not cacheable before t. Sequence hashes
 * chain their prefix, so "seen" is prefix-closed and a binary search finds the boundary in a few lookups.
 */
function firstUnseen(db: Db, hi: Int32Array, lo: Int32Array, from: number, to: number, t: number): number {
  while (from < to) {
    const mid = (from + to) >>> 1;
    const at = seenFirstAt(db, hi[mid]!, lo[mid]!);
    if (at !== undefined && at < t) from = mid + 1;
    else to = mid;
  }
  return from;
}

/** The retention policy version in force at t, from the policy versions the requests carried (null: none known). */
function retentionVersionAt(db: Db, t: number): number | null {
  return retentionVersionOf(policyVersionsAt(db, t));
}

/** The facts of a block no request or worker had before the turn (by what its local hash says). */
const NEW_NO_LOCAL: BlockFacts = { residentOn: [], seenBefore: false, lastRemoval: null, localSeenBefore: null };
const NEW_LOCAL_SEEN: BlockFacts = { residentOn: [], seenBefore: false, lastRemoval: null, localSeenBefore: true };
const NEW_LOCAL_UNSEEN: BlockFacts = { residentOn: [], seenBefore: false, lastRemoval: null, localSeenBefore: false };
const NONE_KNOWN: ReadonlySet<number> = new Set<number>();

/** Attribute one request's misses, record its new blocks as seen, and store its causes and minute sums. */
export function attributeRequest(db: Db, r: RequestRow): Attribution {
  const chains = chainsOf(db, r);
  const turn: TurnInput = {
    inputTokens: r.inputTokens,
    cachedTokens: r.cachedTokens,
    blockSize: r.blockSize,
    blockCount: chains.length,
    workerId: r.workerId,
    decision: decisionOf(db, r.requestId),
  };
  const { first, end } = recomputedBlocks(turn);
  const n = end - first;
  const seqHi = new Int32Array(n);
  const seqLo = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    seqHi[k] = chains.seqHi(first + k);
    seqLo[k] = chains.seqLo(first + k);
  }
  const boundary = firstUnseen(db, seqHi, seqLo, 0, n, r.arrivedAt);
  // Facts objects are shared by runs of blocks alike (same residency, same seen mark): a turn has few distinct ones.
  const facts: BlockFacts[] = new Array<BlockFacts>(n);
  const seen = seenBefore(db, seqHi, seqLo, boundary, r.arrivedAt);
  const residency = residenciesAt(db, seqHi, seqLo, 0, boundary, r.arrivedAt, r.workerId);
  let run: BlockFacts | null = null;
  let runAt: Residency | null = null;
  for (let k = 0; k < boundary; k++) {
    const at = residency[k]!;
    const wasSeen = seen[k] === 1;
    if (run === null || runAt !== at || run.seenBefore !== wasSeen) {
      run = { residentOn: at.residentOn, seenBefore: wasSeen, lastRemoval: at.lastRemoval, localSeenBefore: null };
      runAt = at;
    }
    facts[k] = run;
  }
  const m = chains.hasLocal ? n - boundary : 0;
  const localHi = new Int32Array(m);
  const localLo = new Int32Array(m);
  for (let k = 0; k < m; k++) {
    localHi[k] = chains.localHi(first + boundary + k);
    localLo[k] = chains.localLo(first + boundary + k);
  }
  const known = chains.hasLocal ? localSeenBefore(db, localHi, localLo, r.arrivedAt) : NONE_KNOWN;
  for (let k = boundary; k < n; k++)
    facts[k] = !chains.hasLocal ? NEW_NO_LOCAL : known.has(k - boundary) ? NEW_LOCAL_SEEN : NEW_LOCAL_UNSEEN;
  const cacheableAt = r.firstTokenAt ?? r.finishedAt ?? r.arrivedAt;
  markSeenAll(db, seqHi, seqLo, boundary, n, cacheableAt);
  markLocalAll(db, localHi, localLo, m, r.arrivedAt, known);
  const a = attributeTurn(turn, facts);
  const retentionVersion = a.mainRemoval ? retentionVersionAt(db, a.mainRemoval.at) : null;
  const prev = r.sessionId ? previousTurnOf(db, r.sessionId, r.trajectoryId, r.arrivedAt) : undefined;
  // Judged again after a crash (the cursor is saved with the marks): the causes row is kept and counted once.
  putCauses(db, causesRowOf(r, a, retentionVersion, prev), minuteOf(r.arrivedAt));
  return a;
}
