import os from "node:os";
import type { FirstRunRow, WindowRequestRow } from "../../db/rows/previews";
import { SEGMENT_NAMES } from "../sim/stream";
import {
  defaultPolicies,
  POLICY_KINDS,
  validatePolicy,
  type PolicyDocuments,
  type PolicyKind,
} from "../../lib/policies/policies";
import { AppError } from "../errors";
import type { AgentHints, WorkerRole } from "../sim/types";
import type { RecordedTurn, ReplayInput } from "./types";
import type { WindowSource } from "./window-source";

// The recorded window as the replay's plain input: requests (and the minutes before, to warm the caches), the workers
// seen, which trajectories go on after it, and the policies in force then (the version most of its requests ran under).

export const MAX_WINDOW_MS = 24 * 3_600_000;
export const DEFAULT_WINDOW_MS = 3_600_000;
export const WARMUP_MS = 5 * 60_000;
/** Recorded turns after the window loaded too: a faster candidate can send them inside it. */
export const AFTER_MS = 20 * 60_000;
export const MAX_REPLAY_REQUESTS = 300_000;
const RUNS_LOOKBACK_MS = 6 * 3_600_000;
const MAX_RUNS = 20_000;
const FOLLOW_MS = 120_000;
/** At most this many later chunks of one chain start are followed. */
const FOLLOW_ROWS = 5_000;
const MAX_DISTINCT_STARTS = 64;

export type LoadOptions = {
  /** Documents to use for a kind whose version in force the console does not hold (e.g. a target's start configuration). */
  baseline?: Partial<Record<PolicyKind, unknown>>;
  imported?: boolean;
};

/** Read a window for the replay; refuses an empty window and one over the request limit (AppError). */
export async function loadWindow(
  src: WindowSource,
  from: number,
  to: number,
  opts: LoadOptions = {},
): Promise<ReplayInput> {
  const rows = await src.requests(from - WARMUP_MS, to + AFTER_MS, MAX_REPLAY_REQUESTS + 1);
  if (rows.length > MAX_REPLAY_REQUESTS)
    throw new AppError(
      "BAD_REQUEST",
      `the window holds more than ${MAX_REPLAY_REQUESTS} requests: preview a shorter window`,
    );
  const hints = new Map<string, AgentHints>();
  const chains = sharedPairs(rows);
  const turns = rows.map((r, i) => turnOf(r, from, to, hints, chains[i]!));
  if (!turns.some((t) => t.phase === "window"))
    throw new AppError("BAD_REQUEST", "no recorded traffic in this window: nothing to replay", { empty: true });
  const { baseline, notes } = await baselineOf(src, rows, from, opts.baseline ?? {});
  const workers = (await src.workers(from, to)).map((w) => ({
    workerId: w.workerId,
    role: (w.role === "prefill" || w.role === "decode" ? w.role : "aggregated") as WorkerRole,
    kvTotalBlocks: w.kvTotalBlocks,
    blockSize: w.blockSize,
    model: w.model,
  }));
  const imported = opts.imported ?? rows.every((r) => r.harness === "mooncake");
  return {
    from,
    to,
    turns,
    workers,
    continuing: await src.trajectories(to + AFTER_MS, to + AFTER_MS + DEFAULT_WINDOW_MS),
    baseline,
    baselineNotes: notes,
    firstRuns: await firstRunsOf(src, await src.chainStarts(from - RUNS_LOOKBACK_MS, to, MAX_RUNS), baseline),
    imported,
  };
}

/** `hints`: agent hints parsed so far, by their text (turns repeat a few thousand texts; the replay only reads them). */
function turnOf(
  r: WindowRequestRow,
  from: number,
  to: number,
  hints: Map<string, AgentHints>,
  blocks: Uint32Array | null,
): RecordedTurn {
  const session = r.sessionId ?? r.requestId;
  return {
    requestId: r.requestId,
    sessionId: session,
    trajectoryId: r.trajectoryId ?? session,
    parentTrajectoryId: r.parentTrajectoryId,
    sessionType: r.sessionType ?? "unknown",
    harness: r.harness,
    arrivedAt: r.arrivedAt,
    firstTokenAt: r.firstTokenAt,
    finishedAt: r.finishedAt,
    inputTokens: r.inputTokens,
    cachedTokens: r.cachedTokens,
    outputTokens: r.outputTokens,
    reasoningTokens: r.reasoningTokens ?? 0,
    status: r.status === "error" || r.status === "cancelled" ? r.status : "ok",
    hints: hintsOf(r.agentHints, hints),
    blockSize: r.blockSize,
    blocks,
    workerId: r.workerId,
    firstSeq: r.firstSeq ? [r.firstSeq.readUInt32BE(0), r.firstSeq.readUInt32BE(4)] : null,
    phase: r.arrivedAt < from ? "warmup" : r.arrivedAt >= to ? "after" : "window",
  };
}

const NO_HINTS: AgentHints = Object.freeze({});

function hintsOf(text: string | null, parsed: Map<string, AgentHints>): AgentHints {
  if (!text) return NO_HINTS;
  let h = parsed.get(text);
  if (h === undefined) {
    try {
      h = JSON.parse(text) as AgentHints;
    } catch {
      h = NO_HINTS;
    }
    parsed.set(text, h);
  }
  return h;
}

/**
 * Every row's chain (8-byte big-endian hashes) as (hi, lo) pairs, all in one SharedArrayBuffer: a baseline run in a
 * helper thread gets the window without a copy of its chains. Rows whose chains are views of one buffer (the turns of
 * a trajectory, each its previous turn's chain and more: db/sqlite/chains.ts) stay views of one span of it: the span
 * is copied once. The bytes are copied as they are, then each 32-bit word of the whole buffer swapped in place once.
 */
export function sharedPairs(rows: readonly { chain: Buffer | null }[]): (Uint32Array | null)[] {
  // Per source buffer (and offset modulo 8, so that every view stays aligned): the span its rows' hashes cover.
  const spans = new Map<ArrayBufferLike, Map<number, { lo: number; hi: number; at: number }>>();
  const spanOf = (c: Buffer) => spans.get(c.buffer)!.get(c.byteOffset % 8)!;
  for (const r of rows) {
    if (!r.chain) continue;
    const c = r.chain;
    const end = c.byteOffset + Math.floor(c.byteLength / 8) * 8;
    let byMod = spans.get(c.buffer);
    if (!byMod) spans.set(c.buffer, (byMod = new Map()));
    const span = byMod.get(c.byteOffset % 8);
    if (!span) byMod.set(c.byteOffset % 8, { lo: c.byteOffset, hi: end, at: 0 });
    else {
      span.lo = Math.min(span.lo, c.byteOffset);
      span.hi = Math.max(span.hi, end);
    }
  }
  let total = 0;
  for (const byMod of spans.values())
    for (const span of byMod.values()) {
      span.at = total;
      total += span.hi - span.lo;
    }
  const shared = new SharedArrayBuffer(total);
  const bytes = Buffer.from(shared);
  for (const [buffer, byMod] of spans)
    for (const span of byMod.values()) bytes.set(new Uint8Array(buffer, span.lo, span.hi - span.lo), span.at);
  if (total > 0 && os.endianness() === "LE") bytes.swap32();
  return rows.map((r) => {
    if (!r.chain) return null;
    const span = spanOf(r.chain);
    return new Uint32Array(shared, span.at + r.chain.byteOffset - span.lo, Math.floor(r.chain.byteLength / 8) * 2);
  });
}

/** Per kind, the version most counted requests ran under, as a document; defaults (said so) when it is not held. */
async function baselineOf(
  src: WindowSource,
  rows: readonly WindowRequestRow[],
  from: number,
  given: Partial<Record<PolicyKind, unknown>>,
): Promise<{ baseline: PolicyDocuments; notes: string[] }> {
  const counts = Object.fromEntries(POLICY_KINDS.map((k) => [k, new Map<number, number>()])) as Record<
    PolicyKind,
    Map<number, number>
  >;
  for (const r of rows) {
    if (r.arrivedAt < from || !r.policyVersions) continue;
    let v: Partial<Record<PolicyKind, number>>;
    try {
      v = JSON.parse(r.policyVersions) as Partial<Record<PolicyKind, number>>;
    } catch {
      continue;
    }
    for (const k of POLICY_KINDS) if (typeof v[k] === "number") counts[k].set(v[k], (counts[k].get(v[k]) ?? 0) + 1);
  }
  const baseline = defaultPolicies();
  const notes: string[] = [];
  for (const kind of POLICY_KINDS) {
    const version = [...counts[kind]].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    const stored = version !== null && version > 0 ? await src.versionDocument(kind, version) : null;
    const doc = stored ? stored.document : given[kind];
    const checked = doc === undefined ? null : validatePolicy(kind, doc);
    if (checked?.ok) {
      (baseline as Record<PolicyKind, unknown>)[kind] = checked.document;
      if (!stored) notes.push(`${kind} in force: the start configuration given with the preview`);
      continue;
    }
    notes.push(
      version === null
        ? `${kind} in force unknown (requests carry no version): the defaults assumed`
        : `${kind} version ${version} is not held by the console (a target's start configuration): the defaults assumed`,
    );
  }
  return { baseline, notes };
}

/**
 * The segment each recorded chain start began with, and for how many blocks: from the retention class of the store
 * (a rule's segment, or a default class named after its segment), followed through the worker's next stores of the
 * same chain while the class stays (prefill stores a long prompt in chunks). The earliest start per first block wins.
 */
async function firstRunsOf(
  src: WindowSource,
  rows: readonly FirstRunRow[],
  baseline: PolicyDocuments,
): Promise<ReplayInput["firstRuns"]> {
  const segmentOf = (cls: string | null): string | null => {
    if (cls === null) return null;
    const rule = baseline.retention.rules.find((r) => r.name === cls);
    if (rule) return rule.match.segment === "any" ? null : rule.match.segment;
    return (SEGMENT_NAMES as readonly string[]).includes(cls) ? cls : null;
  };
  const out = new Map<string, ReplayInput["firstRuns"][number]>();
  for (const r of rows) {
    const key = r.first.toString("hex");
    const segment = segmentOf(r.retentionClass);
    if (out.has(key) || segment === null || r.first.byteLength < 8) continue;
    let blocks = r.blocks;
    let last = r.last;
    for (let k = 0; k < FOLLOW_ROWS; k++) {
      const n = (await src.runsAfter(r.workerId, last, r.ts, r.ts + FOLLOW_MS, 4))[0];
      if (!n || n.retentionClass !== r.retentionClass) break;
      blocks += n.blocks;
      last = n.last;
    }
    out.set(key, { hi: r.first.readUInt32BE(0), lo: r.first.readUInt32BE(4), blocks, segment });
    if (out.size >= MAX_DISTINCT_STARTS) break;
  }
  return [...out.values()];
}
