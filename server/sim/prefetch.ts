import { BlockList } from "./block-list";
import type { Dist } from "./harness";
import type { ClusterTiers, TierWorker } from "./kv-tiers";
import type { ToolCall } from "./trajectory";
import type { SimRequest } from "./types";

// Prefetch on resume (frontend `prefetch`, retention `prefetch_on_resume`): while an agent waits on its tools, its
// offloaded blocks are brought back to the device of the worker that served its last turn, starting `lead_ms` before
// the tools are predicted to end. The prediction is a low quantile of the tool's recorded durations (the tool's own
// distribution until enough runs are recorded), so most prefetches land before the agent resumes. A prefetch is used
// by the blocks still on that device when the agent's next turn is routed there; the rest is wasted (counted).

/** Share of a tool's recorded runs expected to end before the prediction. */
export const PREDICT_QUANTILE = 0.25;
/** Prefetched blocks are held on device (not evictable) until the agent resumes or this quantile of the tools' runs has passed. */
export const HOLD_QUANTILE = 0.9;
/** Prefetched blocks held on a worker at once stay under this share of its device blocks. */
const MAX_HELD_SHARE = 0.5;
/** Standard normal quantiles of the two quantiles used (lognormal fallback). */
const Z: Record<number, number> = { 0.25: -0.6745, 0.9: 1.2816 };
const KEEP = 64;
const MIN_RECORDED = 8;

/** Recent durations of each tool, by name (ms). */
export class ToolDurations {
  private runs = new Map<string, number[]>();

  record(name: string, ms: number): void {
    let list = this.runs.get(name);
    if (!list) this.runs.set(name, (list = []));
    list.push(ms);
    if (list.length > KEEP) list.shift();
  }

  /** The q-quantile (PREDICT_QUANTILE or HOLD_QUANTILE) of the tool's recorded runs, else of its lognormal wait distribution. */
  predict(name: string, wait: Dist, q = PREDICT_QUANTILE): number {
    const list = this.runs.get(name);
    if (list && list.length >= MIN_RECORDED) {
      const sorted = [...list].sort((a, b) => a - b);
      return sorted[Math.floor(q * (sorted.length - 1))]!;
    }
    return Math.min(wait.max, wait.median * Math.exp(wait.sigma * (Z[q] ?? 0)));
  }
}

type Pending = {
  req: SimRequest;
  workerId: string;
  /** 1 at each block position it is bringing from a lower tier (planned when it starts). */
  planned: Uint8Array;
  /** 1 at each block position the prefetch brought to device (filled when it completes). */
  marks: Uint8Array;
  blocks: number;
  completesAt: number;
  done: boolean;
  /** Abandoned before it completed (the agent went elsewhere or ended). */
  cancelled: boolean;
  /** A turn routed to its worker waits for it (its blocks count as used). */
  claimed: boolean;
  /** Device blocks of the chain referenced while the agent is expected back (null: not held). */
  held: BlockList | null;
  /** When the hold ends if the agent has not resumed (ms). */
  holdUntil: number;
};

/** Prefetch totals of a run, in blocks. */
export type PrefetchStats = { prefetches: number; blocks: number; used: number; wasted: number };

export interface PrefetchHost {
  readonly now: number;
  at(t: number, run: () => void): void;
  /** The ready worker with this id, or null. */
  worker(id: string): TierWorker | null;
  flushRemoved(w: TierWorker): void;
}

export class Prefetcher {
  readonly durations = new ToolDurations();
  readonly stats: PrefetchStats = { prefetches: 0, blocks: 0, used: 0, wasted: 0 };
  private pending = new Map<string, Pending>();
  /** Per worker: prefetched blocks held (for the share cap) and block references held (not decode load). */
  private heldOn = new Map<string, number>();
  private refsOn = new Map<string, number>();

  constructor(
    private host: PrefetchHost,
    private tiers: ClusterTiers,
  ) {}

  /**
   * The tool calls of a turn were dispatched: schedule the prefetch of that turn's prompt blocks `leadMs` before the
   * calls are predicted to end (plus the harness's delay before the next turn). Turns calling subagents are skipped.
   * `stillWaiting` says at fire time whether the agent is still waiting on these calls.
   */
  schedule(
    req: SimRequest,
    calls: readonly ToolCall[],
    overheadMs: number,
    leadMs: number,
    stillWaiting: () => boolean,
  ) {
    if (req.workerId === null || calls.length === 0 || calls.some((c) => c.subagent)) return;
    let end = 0;
    let late = 0;
    for (const c of calls) {
      end = Math.max(end, c.startedAt + this.durations.predict(c.spec.name, c.spec.wait));
      late = Math.max(late, c.startedAt + this.durations.predict(c.spec.name, c.spec.wait, HOLD_QUANTILE));
    }
    const fireAt = Math.max(this.host.now, end + overheadMs - leadMs);
    const workerId = req.workerId;
    this.host.at(fireAt, () => {
      if (stillWaiting()) this.fire(req, workerId, late + overheadMs);
    });
  }

  private fire(req: SimRequest, workerId: string, holdUntil: number): void {
    const w = this.host.worker(workerId);
    if (!w) return;
    this.settle(req.trajectoryId, null);
    const plan = this.tiers.plan(w, req, 0, null, true);
    if (!plan.tiers.some((t) => t > 0)) return;
    const planned = new Uint8Array(req.nBlocks);
    plan.tiers.forEach((t, k) => (planned[plan.from + k] = t > 0 ? 1 : 0));
    const p: Pending = {
      req,
      workerId,
      planned,
      marks: new Uint8Array(req.nBlocks),
      blocks: 0,
      completesAt: this.host.now + plan.onboardMs,
      done: false,
      cancelled: false,
      claimed: false,
      held: null,
      holdUntil,
    };
    this.pending.set(req.trajectoryId, p);
    this.stats.prefetches++;
    this.host.at(p.completesAt, () => {
      if (p.cancelled) return;
      p.blocks = this.tiers.onboard(w, req, plan.from, plan.tiers, p.marks);
      p.done = true;
      this.stats.blocks += p.blocks;
      if (p.claimed) this.stats.used += p.blocks;
      this.host.flushRemoved(w);
      this.hold(w, p);
    });
  }

  /** Reference the prefetched chain on device until the agent resumes or the hold ends (within the worker's share). */
  private hold(w: TierWorker, p: Pending): void {
    if (p.blocks === 0) return;
    const held = new BlockList();
    w.pool.acquirePrefix(p.req.view, p.req.nBlocks, p.req.classes, p.req.segments, held);
    const total = (this.heldOn.get(w.id) ?? 0) + p.blocks;
    if (total > w.pool.capacity * MAX_HELD_SHARE) {
      w.pool.release(held, this.host.now);
      return;
    }
    this.heldOn.set(w.id, total);
    this.refsOn.set(w.id, (this.refsOn.get(w.id) ?? 0) + held.length);
    p.held = held;
    if (!p.claimed) this.host.at(Math.max(this.host.now, p.holdUntil), () => this.release(p));
  }

  /** Block references held for prefetches on a worker: active blocks that are no request's decode load. */
  heldRefs(workerId: string): number {
    return this.refsOn.get(workerId) ?? 0;
  }

  /** End a prefetch's hold on its device blocks (they stay cached, evictable again). */
  release(p: Pending): void {
    if (!p.held) return;
    const w = this.host.worker(p.workerId);
    if (w) w.pool.release(p.held, this.host.now);
    this.heldOn.set(p.workerId, (this.heldOn.get(p.workerId) ?? 0) - p.blocks);
    this.refsOn.set(p.workerId, (this.refsOn.get(p.workerId) ?? 0) - p.held.length);
    p.held = null;
  }

  /**
   * The trajectory's next turn is routed to `workerId` (null: the trajectory ended). Returns the prefetch that turn can
   * use there — still in flight (the turn waits for it) or landed — and books prefetched blocks it cannot use (no longer
   * on that device, or the turn went elsewhere) as wasted.
   */
  settle(trajectoryId: string, workerId: string | null): Pending | null {
    const p = this.pending.get(trajectoryId);
    if (!p) return null;
    this.pending.delete(trajectoryId);
    const mine = workerId !== null && workerId === p.workerId;
    if (!p.done) {
      if (mine) p.claimed = true;
      else p.cancelled = true;
      return mine ? p : null;
    }
    const w = mine ? this.host.worker(p.workerId) : null;
    let used = 0;
    if (w) for (let i = 0; i < p.marks.length; i++) if (p.marks[i] && this.tiers.tierOf(w, p.req, i) === 0) used++;
    this.stats.used += used;
    this.stats.wasted += p.blocks - used;
    if (!w) this.release(p);
    return w ? p : null;
  }
}
