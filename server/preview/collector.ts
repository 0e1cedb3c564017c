import { quantileSorted } from "../../lib/quantile";
import type { TelemetryEventInput } from "../ingest/events";
import type { BlockPool, RetentionClass } from "../sim/block-pool";
import { removedCount } from "../sim/event-builders";
import type { SimRequest } from "../sim/types";
import { PairSet } from "./pair-set";
import type { CauseTokens, RecordedTurn, RunSummary } from "./types";

// What one replay run measured, from the requests it finished and the events the simulated cluster emitted: the same
// figures the dashboard shows for live traffic, reduced to a summary. Miss causes follow the attribution's meaning at
// the replay's resolution: a block the replay never saw is cold (diverged when its content was seen after another
// prefix), one another worker held at routing time is routed away, one seen and gone is evicted. Evictions by class
// are the class each block had in its pool as it left (the pool tells the collector); below device, "unknown".

const SEEN_SEQ = 2;
const SEEN_LOCAL = 1;
const TWO32 = 4294967296;

/** The simulated cluster's workers as the collector reads them: each pool tells it the class of what it removes. */
export type WatchedWorkers = { readonly workers: readonly { readonly id: string; readonly pool: BlockPool }[] };

/**
 * The event kinds a replay's collector takes (the simulator then builds no request event, no kv.stored event and no
 * kv.removed event, and its pools keep no removed hashes): device removals come as counts instead (`removals`, told
 * by Simulation.onRemovals). Fed events, it reads kv.stored and kv.removed as well.
 */
export const COLLECTED_KINDS = [
  "route.decision",
  "worker.stats",
  "worker.up",
  "worker.down",
  "planner.decision",
] as const;

export class RunCollector {
  private hit = 0;
  private query = 0;
  private ttft: number[] = [];
  private causes: CauseTokens = { cold: 0, diverged: 0, evicted: 0, routed_away: 0 };
  private byReason: Record<string, number> = {};
  private byClass: Record<string, number> = {};
  /** Per worker: blocks its pool removed since its last kv.removed event, by class (a few classes: a list). */
  private pending = new Map<string, { cls: RetentionClass; n: number }[]>();
  private kv = new Map<string, { sum: number; n: number; max: number; preemptions: number }>();
  private routedAway = new Map<string, number>();
  private flags = new Map<string, { from: number; f: Uint8Array }>();
  private checked = new WeakMap<object, number>();
  /**
   * Sized for the blocks the run will look up (expectedKeys; without marks about 64 a turn, the steady scenario's hour
   * having 54), within 2^12…2^20: growing from small rehashed every key at each doubling, and a set far larger than
   * what it holds pays a page fault for nearly every insert.
   */
  private seenSeq: PairSet;
  private seenLocal: PairSet;
  private up = new Map<string, number>();
  private gpuMs = 0;
  private decisions: RunSummary["planner"]["decisions"] = [];
  private requests = 0;
  /** Turns counted in the window that the recording served and this run refused (they can never fit a worker's KV). */
  refused = 0;
  /** Per turn: cached tokens in this run (-1: not sent inside the window, or not finished). */
  readonly cachedOf: Int32Array;

  constructor(
    private turns: readonly RecordedTurn[],
    private blockSize: number,
    private from: number,
    private to: number,
    private cluster: WatchedWorkers,
    /** About how many blocks the run will look up (default: 64 a turn); the sets grow past it if need be. */
    expectedKeys = turns.length * 64,
  ) {
    this.cachedOf = new Int32Array(turns.length).fill(-1);
    const expected = Math.min(1 << 20, Math.max(1 << 12, expectedKeys));
    this.seenSeq = new PairSet(expected);
    this.seenLocal = new PairSet(expected);
  }

  private counted = new Set<string>();

  /**
   * A turn was sent: note which of its blocks the replay saw before (`contents`: its blocks' content ids). Blocks of
   * its view checked for an earlier turn were seen by that turn, and so were its first `known` blocks (an opening
   * another turn sent), so only the blocks it adds are looked up. Of those, a block from the view's uniqueFrom on has
   * a hash no other view holds, so no other turn sent it: only its content is looked up, and not even that when `lone`
   * (per block of the view) says no other block of the window has that content.
   */
  sent(i: number, req: SimRequest, contents: readonly number[], known = 0, lone: Uint8Array | null = null): void {
    const v = req.view;
    const n = req.nBlocks;
    const from = Math.min(n, Math.max(known, this.checked.get(v) ?? 0));
    const own = Math.max(from, Math.min(n, v.uniqueFrom));
    const f = new Uint8Array(n - from);
    // A sequence hash seen before was added with the same content (it hashes its parent's and this block's content),
    // so its local content is in seenLocal already: only an unseen one is looked up there.
    for (let k = from; k < own; k++)
      f[k - from] = this.seenSeq.addSeen(v.words[2 * k]!, v.words[2 * k + 1]!)
        ? SEEN_SEQ
        : this.contentFlag(contents[k]!);
    // No other block holds these hashes, so nobody looks them up in seenSeq: they are not added.
    for (let k = own; k < n; k++) if (lone === null || lone[k] !== 1) f[k - from] = this.contentFlag(contents[k]!);
    if (n > from) this.checked.set(v, n);
    if (req.arrivedAt >= this.from && req.arrivedAt < this.to) {
      this.counted.add(req.id);
      this.flags.set(req.id, { from, f });
    }
  }

  /** SEEN_LOCAL when content `c` was seen before (after another prefix), else 0; notes it seen. */
  private contentFlag(c: number): number {
    return this.seenLocal.addSeen(Math.floor(c / TWO32), c % TWO32) ? SEEN_LOCAL : 0;
  }

  done(i: number, req: SimRequest): void {
    if (!this.counted.delete(req.id)) return;
    if (req.finishReason === "context_too_long" && this.turns[i]!.status !== "error") this.refused++;
    this.cachedOf[i] = req.cachedTokens;
    this.requests++;
    this.hit += req.cachedTokens;
    this.query += req.inputTokens;
    if (req.firstTokenAt !== null) this.ttft.push(req.firstTokenAt - req.arrivedAt);
    const seen = this.flags.get(req.id);
    this.flags.delete(req.id);
    let missed = req.inputTokens - req.cachedTokens;
    if (!seen || missed <= 0) return;
    const { from, f } = seen;
    const bs = this.blockSize;
    let away = (this.routedAway.get(req.id) ?? 0) * bs;
    this.routedAway.delete(req.id);
    for (let k = Math.floor(req.cachedTokens / bs); k < req.nBlocks && missed > 0; k++) {
      const tokens = Math.min(bs, missed);
      missed -= tokens;
      const flag = k < from ? SEEN_SEQ : f[k - from];
      if (flag === SEEN_SEQ) {
        const a = Math.min(away, tokens);
        away -= a;
        this.causes.routed_away += a;
        this.causes.evicted += tokens - a;
      } else if (flag === SEEN_LOCAL) this.causes.diverged += tokens;
      else this.causes.cold += tokens;
    }
    this.causes.cold += missed;
  }

  event(e: TelemetryEventInput): void {
    switch (e.kind) {
      case "route.decision": {
        if (!this.flags.has(e.request_id)) return;
        let best = 0;
        let chosen = 0;
        for (const c of e.candidates) {
          best = Math.max(best, c.overlap_blocks);
          if (c.worker_id === e.chosen_worker_id) chosen = c.overlap_blocks;
        }
        if (best > chosen) this.routedAway.set(e.request_id, best - chosen);
        return;
      }
      case "kv.stored":
        if (!this.pending.has(e.worker_id)) this.watch(e.worker_id);
        return;
      case "kv.removed": {
        const n = removedCount(e);
        if (e.storage_tier === undefined || e.storage_tier === "device")
          this.removedOnDevice(e.worker_id, e.ts, e.reason, n);
        else if (e.ts >= this.from) {
          this.byReason[e.reason] = (this.byReason[e.reason] ?? 0) + n;
          this.byClass.unknown = (this.byClass.unknown ?? 0) + n;
        }
        return;
      }
      case "worker.stats": {
        if (e.ts < this.from) return;
        const s = this.kv.get(e.worker_id) ?? { sum: 0, n: 0, max: 0, preemptions: 0 };
        const u = e.kv_total_blocks > 0 ? e.kv_active_blocks / e.kv_total_blocks : 0;
        s.sum += u;
        s.n++;
        s.max = Math.max(s.max, u);
        if (e.preemptions !== undefined) s.preemptions = Number(e.preemptions);
        this.kv.set(e.worker_id, s);
        return;
      }
      case "worker.up":
        // Before its first store: a worker removes nothing before it has stored something.
        if (!this.pending.has(e.worker_id)) this.watch(e.worker_id);
        this.up.set(e.worker_id, Math.max(e.ts, this.from));
        return;
      case "worker.down": {
        const since = this.up.get(e.worker_id);
        if (since !== undefined) this.gpuMs += Math.max(0, e.ts - since);
        this.up.delete(e.worker_id);
        return;
      }
      case "planner.decision":
        if (e.action !== "none" && e.ts >= this.from)
          this.decisions.push({
            ts: e.ts,
            role: e.role,
            action: e.action,
            replicas_after: e.replicas_after,
            reason: e.reason,
          });
        return;
      default:
    }
  }

  /**
   * A flush of a worker's device removals, as the simulator reports it without kv.removed events (Simulation.onRemovals):
   * what those events would have said, in their order.
   */
  removals(workerId: string, ts: number, counts: readonly (readonly [string, number])[]): void {
    for (const [reason, n] of counts) this.removedOnDevice(workerId, ts, reason, n);
  }

  /** `n` blocks a worker's pool removed for `reason`, reported at `ts`; the first report of a flush takes the classes. */
  private removedOnDevice(workerId: string, ts: number, reason: string, n: number): void {
    const counted = ts >= this.from;
    if (counted) this.byReason[reason] = (this.byReason[reason] ?? 0) + n;
    const p = this.pending.get(workerId);
    if (!p || p.length === 0) return;
    if (counted) for (const { cls, n: k } of p) this.byClass[cls.name] = (this.byClass[cls.name] ?? 0) + k;
    p.length = 0;
  }

  /** Have the worker's pool tell this collector the class of each block it removes (from its worker.up, or its first kv.stored when fed events without one). */
  private watch(workerId: string): void {
    const p: { cls: RetentionClass; n: number }[] = [];
    this.pending.set(workerId, p);
    const w = this.cluster.workers.find((x) => x.id === workerId);
    // Called for every block a pool removes (millions an hour): a scan of the few classes, no string-keyed map.
    if (w)
      w.pool.onRemove = (cls) => {
        for (let j = 0; j < p.length; j++)
          if (p[j]!.cls === cls) {
            p[j]!.n++;
            return;
          }
        p.push({ cls, n: 1 });
      };
  }

  /** The run's summary; workers still up count GPU time to `endMs`. */
  summary(endMs: number): RunSummary {
    let gpuMs = this.gpuMs;
    for (const since of this.up.values()) gpuMs += Math.max(0, endMs - since);
    const sorted = this.ttft.sort((a, b) => a - b);
    const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
    return {
      hit_rate: this.query > 0 ? this.hit / this.query : null,
      prompt_tokens: this.query,
      cached_tokens: this.hit,
      recomputed_by_cause: { ...this.causes },
      ttft_p50_ms: round(quantileSorted(sorted, 0.5)),
      ttft_p95_ms: round(quantileSorted(sorted, 0.95)),
      evictions_by_reason: { ...this.byReason },
      evictions_by_class: { ...this.byClass },
      workers: [...this.kv]
        .map(([id, s]) => ({
          worker_id: id,
          kv_mean: s.n ? s.sum / s.n : null,
          kv_max: s.n ? s.max : null,
          preemptions: s.preemptions,
        }))
        .sort((a, b) => a.worker_id.localeCompare(b.worker_id, "en", { numeric: true })),
      planner: { decisions: this.decisions.slice(0, 200), gpu_hours: gpuMs / 3_600_000 },
      requests: this.requests,
    };
  }
}
