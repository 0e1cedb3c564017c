import type { AutoscalingPolicy, RoutingPolicy } from "../../lib/policies/policies";
import { MAX_SLOTS, PrefixIndex } from "./prefix-index";
import { decide, type PlannerRole } from "./planner";
import type { Rng } from "./prng";
import { chooseWorker, type CandidateLoad } from "./router";
import { prefillTokensPerSecond, setupMs, type EngineTiming } from "./timing";
import { ClusterTiers, type TierBandwidth } from "./kv-tiers";
import { Prefetcher } from "./prefetch";
import type { TierConfig } from "./tiers";
import type { RemovalReason } from "./removal-log";
import type { EventBody, SimRequest, WorkerRole } from "./types";
import { reportRemoved, reportStored } from "./kv-reports";
import { SimWorker, type WorkerHost } from "./worker";

// The workers, the router in front of them and the planner that resizes them. Workers join cold
// (worker.up after a startup delay) and leave drained (kv.cleared + worker.down).

export interface CoreHost {
  readonly now: number;
  at(t: number, run: () => void): void;
  emit(event: EventBody): void;
  /** A worker's removals since its last flush, by reason, when its pool keeps no hashes (nobody takes kv.removed). */
  removalsCounted(workerId: string, counts: readonly [RemovalReason, number][]): void;
  /** Whether events of `kind` are wanted (emit drops the others; checked first where building them costs). */
  wants(kind: EventBody["kind"]): boolean;
  routing(): RoutingPolicy;
  autoscaling(): AutoscalingPolicy;
  requestFinished(req: SimRequest): void;
}

export type ClusterConfig = {
  model: string;
  blockSize: number;
  timing: EngineTiming;
  startupMs: number;
  kvBlocks: Record<WorkerRole, number>;
  initial: Partial<Record<WorkerRole, number>>;
  /** Lower KV tiers (absent or all 0: device only) and their bandwidths (defaults in kv-tiers.ts). */
  tiers?: TierConfig;
  tierBandwidth?: TierBandwidth;
  /** Workers are numbered from this + 1 (`w1`, …); a second model group of one cluster starts elsewhere (`w101`, …). */
  workerBase?: number;
};

export const MAX_WORKERS = MAX_SLOTS;

export class Cluster implements WorkerHost {
  readonly index = new PrefixIndex();
  readonly workers: SimWorker[] = [];
  readonly roles: PlannerRole[];
  private freeSlots = Array.from({ length: MAX_WORKERS }, (_, i) => i);
  private counter = 0;
  private parked: SimRequest[] = [];
  private parkedDecode: SimRequest[] = [];
  private samples = new Map<PlannerRole, { sum: number; n: number }>();
  private lastChange = new Map<PlannerRole, number>();
  private overlap: number[] = new Array(MAX_WORKERS).fill(0);
  private lastPlan = 0;
  /** Host, disk and shared tiers and the prefetcher (null when the cluster has device memory only). */
  readonly tiers: ClusterTiers | null;
  readonly prefetcher: Prefetcher | null;

  constructor(
    private host: CoreHost,
    readonly config: ClusterConfig,
    private rng: Rng,
  ) {
    const t = config.tiers;
    this.tiers =
      t && t.host_blocks + t.disk_blocks + t.shared_blocks > 0
        ? new ClusterTiers(host, t, config.blockSize, config.timing.kvBytesPerToken, config.tierBandwidth)
        : null;
    this.prefetcher = this.tiers
      ? new Prefetcher(
          {
            get now() {
              return host.now;
            },
            at: (at, run) => host.at(at, run),
            worker: (id) => this.workers.find((w) => w.id === id && w.state === "ready") ?? null,
            flushRemoved: (w) => this.flushRemoved(w as SimWorker),
          },
          this.tiers,
        )
      : null;
    this.roles = (["aggregated", "prefill", "decode"] as const).filter((r) => (config.initial[r] ?? 0) > 0);
    if (this.roles.includes("prefill") !== this.roles.includes("decode"))
      throw new Error("disaggregated serving needs prefill and decode workers");
  }

  get now(): number {
    return this.host.now;
  }

  at(t: number, run: () => void): void {
    this.host.at(t, run);
  }

  /** Bring up the initial workers, ready at once. */
  start(): void {
    this.lastPlan = this.now;
    this.counter = this.config.workerBase ?? 0;
    for (const role of this.roles) this.lastChange.set(role, this.now);
    for (const role of this.roles) for (let i = 0; i < this.config.initial[role]!; i++) this.addWorker(role, true);
  }

  private get entryRole(): WorkerRole {
    return this.roles.includes("aggregated") ? "aggregated" : "prefill";
  }

  private addWorker(role: WorkerRole, immediate: boolean): void {
    const slot = this.freeSlots.shift();
    if (slot === undefined) return;
    const w = new SimWorker(
      `w${++this.counter}`,
      role,
      slot,
      this.config.kvBlocks[role],
      this.index,
      this.config.blockSize,
      this.config.timing,
      this,
    );
    w.pool.keepRemovedHashes(this.logsRemovals());
    this.workers.push(w);
    this.tiers?.attach(w);
    if (immediate) this.ready(w);
    else this.at(this.now + this.config.startupMs, () => this.ready(w));
  }

  private ready(w: SimWorker): void {
    if (w.state !== "starting") return;
    w.state = "ready";
    w.readySince = this.now;
    w.takeMeanPrefillWork(this.now);
    this.host.emit({
      kind: "worker.up",
      ts: ms(this.now),
      worker_id: w.id,
      role: w.role,
      model: this.config.model,
      kv_total_blocks: w.pool.capacity,
      block_size: this.config.blockSize,
    });
    const parked = w.role === "decode" ? this.parkedDecode.splice(0) : this.parked.splice(0);
    for (const req of parked) w.role === "decode" ? this.handoff(req) : this.route(req);
  }

  /** Route a request among the ready entry workers (all of them if every one is busy). */
  route(req: SimRequest): void {
    const ready = this.workers.filter((w) => w.state === "ready" && w.role === this.entryRole);
    if (ready.length === 0) {
      this.parked.push(req);
      return;
    }
    let mask = 0;
    for (const w of ready) mask |= w.bit;
    this.index.overlaps(req.view, req.nBlocks, mask, this.overlap);
    const policy = this.host.routing();
    const bs = this.config.blockSize;
    const loads: CandidateLoad[] = ready.map((w) => ({
      worker_id: w.id,
      overlap_blocks: this.overlap[w.slot]!,
      prefill_blocks: Math.ceil(w.pendingPrefillTokens / bs) + req.nBlocks,
      // Blocks held only for a prefetch or a queued onboarding are not decode load. Those holds are counted in refs (a
      // block shared by several prefetches, a system prompt, once per hold), the pool's active blocks once per block,
      // so the difference can dip below zero: a load is never negative (the dashboard refuses such a decision).
      decode_blocks: this.tiers
        ? Math.max(0, w.pool.active - this.prefetcher!.heldRefs(w.id) - this.tiers.queuedRefs(w.id))
        : w.pool.active,
      busy: isBusy(w, policy),
      ...(this.tiers ? { credited_overlap: this.tiers.creditedOverlap(w, req, this.overlap[w.slot]!) } : {}),
    }));
    const { chosen, candidates } = chooseWorker(loads, policy, this.rng);
    const w = ready[chosen]!;
    this.host.emit({
      kind: "route.decision",
      ts: ms(this.now),
      request_id: req.id,
      session_id: req.sessionId,
      trajectory_id: req.trajectoryId,
      prompt_blocks: req.nBlocks,
      chosen_worker_id: w.id,
      candidates,
      overlap_credit: policy.overlap_credit,
      prefill_load_scale: policy.prefill_load_scale,
      temperature: policy.temperature,
    });
    if (this.tiers) this.enqueueTiered(req, w, loads[chosen]!.overlap_blocks);
    else w.enqueue(req, Math.max(0, req.inputTokens - loads[chosen]!.overlap_blocks * bs));
  }

  /** Queue a request on a cluster with lower tiers: it waits for its blocks below device (and its prefetch) to come back. */
  private enqueueTiered(req: SimRequest, w: SimWorker, overlap: number): void {
    const tiers = this.tiers!;
    const pending = this.prefetcher!.settle(req.trajectoryId, w.id);
    const inFlight = pending !== null && !pending.done;
    const hit = tiers.plan(w, req, overlap, inFlight ? pending.planned : null);
    hit.prefetched = pending?.marks ?? null;
    req.tierHit = hit;
    const delay = Math.max(hit.onboardMs, inFlight ? pending.completesAt - this.now : 0);
    hit.onboardMs = delay;
    if (pending !== null || hit.tiers.some((t) => t > 0)) {
      // Runs just before the request joins the queue (scheduled first, same time): the prefetch's hold passes to it.
      this.at(this.now + (setupMs(w.timing, req.inputTokens) + delay), () => {
        const brought = tiers.onboard(w, req, hit.from, hit.tiers, null) + (pending?.blocks ?? 0);
        tiers.holdQueued(w, req, brought);
        if (pending) this.prefetcher!.release(pending);
        this.flushRemoved(w);
      });
    }
    const cached = (overlap + hit.tiers.length) * this.config.blockSize;
    w.enqueue(req, Math.max(0, req.inputTokens - cached), delay);
  }

  stored(w: SimWorker, req: SimRequest, created: readonly number[], count: number): void {
    reportStored(this.host, w, req, created, count);
  }

  /**
   * Whether pools keep their removed hashes: for kv.removed events, and for lower tiers (a flush of device removals is
   * what lands offloaded blocks there). Else a flush reports only how many blocks left for each reason.
   */
  logsRemovals(): boolean {
    return this.tiers !== null || this.host.wants("kv.removed");
  }

  flushRemoved(w: SimWorker): void {
    // Offloads land on the lower tiers with the device removals (and may push older blocks out of them).
    if (reportRemoved(this.host, w, this.logsRemovals()) && this.tiers) this.tiers.flush();
  }

  /** Report removals of every worker (after lifecycle evictions), on every tier. */
  flushAll(): void {
    for (const w of this.workers) this.flushRemoved(w);
    this.tiers?.flush();
  }

  handoff(req: SimRequest): void {
    // Least loaded decode worker: blocks in use plus the prompts waiting for room there.
    const load = (w: SimWorker) => w.pool.active + w.waiting * req.nBlocks;
    let best: SimWorker | null = null;
    for (const w of this.workers) {
      if (w.role !== "decode" || w.state !== "ready") continue;
      if (!best || load(w) < load(best)) best = w;
    }
    if (best) best.acceptDecode(req);
    else this.parkedDecode.push(req);
  }

  finished(req: SimRequest): void {
    this.host.requestFinished(req);
  }

  drained(w: SimWorker): void {
    if (w.state !== "draining") return;
    w.state = "down";
    if (w.pool.clear() > 0) this.host.emit({ kind: "kv.cleared", ts: ms(this.now), worker_id: w.id });
    this.tiers?.detach(w);
    this.host.emit({ kind: "worker.down", ts: ms(this.now), worker_id: w.id, reason: "scaled down by the planner" });
    this.release(w);
  }

  private release(w: SimWorker): void {
    this.workers.splice(this.workers.indexOf(w), 1);
    this.freeSlots.push(w.slot);
    this.freeSlots.sort((a, b) => a - b);
  }

  /** Once per simulated second: TTL expiry, worker.stats, planner samples. */
  statsTick(): void {
    const now = this.now;
    if (this.tiers) {
      this.tiers.tick(now);
      this.tiers.flush();
    }
    for (const w of this.workers.slice()) {
      if (!w.up) continue;
      w.tick(now);
      if (!w.up) continue;
      const batch = w.takeBatchTokens();
      this.host.emit({
        kind: "worker.stats",
        ts: ms(now),
        worker_id: w.id,
        kv_active_blocks: w.pool.active,
        kv_total_blocks: w.pool.capacity,
        requests_running: w.running,
        requests_waiting: w.waiting,
        prefix_query_tokens: String(w.queryTokens),
        prefix_hit_tokens: String(w.hitTokens),
        preemptions: String(w.preemptions),
        ...(batch !== null ? { batch_tokens: Math.round(batch * 10) / 10 } : {}),
      });
    }
    for (const role of this.roles) {
      if (role === "prefill") continue;
      const ready = this.workers.filter((w) => w.role === role && w.state === "ready");
      if (!ready.length) continue;
      let value = 0;
      for (const w of ready) value += w.pool.active / w.pool.capacity;
      this.addSample(role, value / ready.length);
    }
  }

  private addSample(role: PlannerRole, value: number): void {
    const s = this.samples.get(role) ?? { sum: 0, n: 0 };
    s.sum += value;
    s.n++;
    this.samples.set(role, s);
  }

  /** Prefill queue: time-averaged seconds of prefill work queued or running per ready prefill worker. */
  private samplePrefill(): void {
    const ready = this.workers.filter((w) => w.role === "prefill" && w.state === "ready");
    if (!ready.length) return;
    let tokens = 0;
    for (const w of ready) tokens += w.takeMeanPrefillWork(this.lastPlan);
    this.addSample("prefill", tokens / ready.length / prefillTokensPerSecond(this.config.timing));
  }

  /** One planner adjustment: a decision per role, emitted whether or not it acts. */
  plannerTick(): void {
    if (this.roles.includes("prefill")) this.samplePrefill();
    this.lastPlan = this.now;
    const policy = this.host.autoscaling();
    for (const role of this.roles) {
      const s = this.samples.get(role);
      this.samples.delete(role);
      const replicas = this.workers.filter(
        (w) => w.role === role && (w.state === "ready" || w.state === "starting"),
      ).length;
      const d = decide({
        role,
        observed: s && s.n ? s.sum / s.n : null,
        replicas,
        gpusInUse: this.workers.length,
        policy,
        now: this.now,
        lastChangeAt: this.lastChange.get(role) ?? null,
        maxWorkers: MAX_WORKERS,
      });
      this.host.emit({ kind: "planner.decision", ts: ms(this.now), ...d, model: this.config.model });
      if (d.action === "none") continue;
      this.lastChange.set(role, this.now);
      if (d.action === "scale_up") this.addWorker(role, false);
      else this.scaleDown(role);
    }
  }

  private scaleDown(role: WorkerRole): void {
    const starting = this.workers.filter((w) => w.role === role && w.state === "starting");
    if (starting.length) {
      const w = starting[starting.length - 1]!;
      w.state = "down";
      this.release(w);
      return;
    }
    const ready = this.workers.filter((w) => w.role === role && w.state === "ready");
    if (ready.length <= 1) return;
    let victim = ready[0]!;
    for (const w of ready) if (w.running + w.waiting <= victim.running + victim.waiting) victim = w;
    victim.state = "draining";
    victim.kick();
  }
}

function isBusy(w: SimWorker, policy: RoutingPolicy): boolean {
  const b = policy.busy;
  if (b.active_decode_blocks_threshold !== null && w.pool.active / w.pool.capacity > b.active_decode_blocks_threshold)
    return true;
  if (b.active_prefill_tokens_threshold !== null && w.pendingPrefillTokens > b.active_prefill_tokens_threshold)
    return true;
  if (
    b.active_prefill_tokens_threshold_frac !== null &&
    w.pendingPrefillTokens > b.active_prefill_tokens_threshold_frac * w.timing.maxBatchedTokens
  )
    return true;
  return false;
}

/** Simulated time as integer Unix ms. */
export function ms(t: number): number {
  return Math.round(t);
}
