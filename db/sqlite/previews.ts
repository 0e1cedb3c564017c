import type { Db } from "./client";
import { decodeAgentHints, decodePolicyVersions } from "../codecs/request-json";
import { CHAIN_COLUMNS, chainPass, type ChainColumns } from "./chains";
import { kvBlockList } from "./kv-lists";
import type { WindowRequestRow, FirstRunRow, StoredRunRow, WindowWorkerRow } from "../rows/previews";

// Rows the policy preview's replay reads from a SQLite file (recorded requests of a window with their full chains,
// the workers seen in it), synchronously in its thread. PostgreSQL's are in db/pg/preview-window.ts; the kept
// results are read and written through the store (db/store/previews.ts). Rows in, rows out: the replay and its
// decisions live in server/preview.

/** Requests of cluster `clusterId` that arrived in [from, to), oldest first, at most `limit`, each with its full chain. */
export function windowRequests(db: Db, from: number, to: number, limit: number, clusterId = 0): WindowRequestRow[] {
  const rows = db.$client
    .prepare(
      `SELECT id, request_id AS requestId, session_id AS sessionId, trajectory_id AS trajectoryId,
         parent_trajectory_id AS parentTrajectoryId, session_type AS sessionType, harness, worker_id AS workerId,
         arrived_at AS arrivedAt, first_token_at AS firstTokenAt, finished_at AS finishedAt, input_tokens AS inputTokens,
         cached_tokens AS cachedTokens, output_tokens AS outputTokens, reasoning_tokens AS reasoningTokens, status,
         agent_hints AS agentHints, block_size AS blockSize, policy_versions AS policyVersions, source, ${CHAIN_COLUMNS}
       FROM requests WHERE arrived_at >= ? AND arrived_at < ? AND cluster_id = ? ORDER BY arrived_at, rowid LIMIT ?`,
    )
    .all(from, to, clusterId, limit) as (Omit<WindowRequestRow, "chain" | "chainIsLocal" | "firstSeq"> &
    ChainColumns)[];
  const chains = chainPass(db);
  return rows.map((r) => {
    const c = chains(r);
    const local = c.local && c.local.byteLength > 0 ? c.local : null;
    return {
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
      agentHints: decodeAgentHints(r.agentHints),
      blockSize: r.blockSize,
      policyVersions: decodePolicyVersions(r.policyVersions),
      source: r.source,
      chain: local ?? c.seq,
      chainIsLocal: local !== null,
      firstSeq: c.firstSeq,
    };
  });
}

const RUN_COLUMNS = `block_hashes AS hashes, block_refs AS refs, block_count AS blocks, retention_class AS retentionClass`;
const DEVICE_STORE = `op = 'stored' AND typeof(block_hashes) = 'blob' AND (storage_tier IS NULL OR storage_tier = 'device')`;

type RawRun = { hashes: Buffer; refs: Buffer | null; blocks: number; retentionClass: string | null };

/** A stored list's first and last 8-byte hashes (references to earlier events resolved); null when unreadable. */
function ends(db: Db, r: RawRun): { first: Buffer; last: Buffer } | null {
  const list = r.refs === null ? r.hashes : kvBlockList(db, r.hashes, r.refs);
  if (list === null || list.length < 8) return null;
  return { first: list.subarray(0, 8), last: list.subarray(list.length - 8) };
}

/**
 * kv.stored events on device that start a chain (no parent) in [from, to), at most `limit`: the first block's hash,
 * how many blocks the event stored and their class. The simulator and vLLM-style senders split a store where the
 * class changes, so such an event spans the first segment of a prompt.
 */
export function chainStartRuns(db: Db, from: number, to: number, limit: number, clusterId = 0): FirstRunRow[] {
  const rows = db.$client
    .prepare(
      `SELECT ${RUN_COLUMNS}, worker_id AS workerId, ts FROM kv_events
       WHERE ts >= ? AND ts < ? AND parent_hash IS NULL AND cluster_id = ? AND ${DEVICE_STORE} ORDER BY ts LIMIT ?`,
    )
    .all(from, to, clusterId, limit) as (RawRun & { workerId: string; ts: number })[];
  const out: FirstRunRow[] = [];
  for (const r of rows) {
    const e = ends(db, r);
    if (e) out.push({ ...e, blocks: r.blocks, retentionClass: r.retentionClass, workerId: r.workerId, ts: r.ts });
  }
  return out;
}

/**
 * Device stores of one worker in [from, to) that continue `parent` (their parent hash), oldest first, at most `limit`
 * (a chain's later chunks); rows whose list cannot be read are left out. Read through kv_events_parent.
 */
export function storedRunsAfter(
  db: Db,
  workerId: string,
  parent: Buffer,
  from: number,
  to: number,
  limit: number,
): StoredRunRow[] {
  const rows = db.$client
    .prepare(
      `SELECT parent_hash AS parent, ${RUN_COLUMNS} FROM kv_events
       WHERE worker_id = ? AND ts >= ? AND ts < ? AND parent_hash = ? AND ${DEVICE_STORE} ORDER BY ts, rowid LIMIT ?`,
    )
    .all(workerId, from, to, parent, limit) as (RawRun & { parent: Buffer })[];
  const out: StoredRunRow[] = [];
  for (const r of rows) {
    const e = ends(db, r);
    if (e) out.push({ parent: r.parent, last: e.last, blocks: r.blocks, retentionClass: r.retentionClass });
  }
  return out;
}
