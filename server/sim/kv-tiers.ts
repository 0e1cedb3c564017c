import type { OffloadTier } from "../../lib/policies/policies";
import { BlockList } from "./block-list";
import { EVICT_AGENT_END, EVICT_NEVER, type RetentionClass } from "./block-pool";
import type { TierConfig } from "./tiers";
import { TierPool } from "./tier-pool";
import type { EventBody, SimRequest } from "./types";
import { TIER_CODES, type TierHit } from "./tier-hit";

export { cachedByTier, TIER_CODES, type TierHit } from "./tier-hit";

// The cluster's KV tiers below device (docs/telemetry-format.md, the storage_tier field): per worker a host and a local disk tier, one
// shared tier for every worker. A block evicted from device goes to its class's offload tier (block-pool's hook);
// a request's prefix is looked up block by block along its chain on the fastest tier holding it, and the blocks
// found below device are onboarded before the request can be scheduled, at that tier's bandwidth.

const HOST = 1;
const DISK = 2;
const SHARED = 3;

/** Read bandwidth of each lower tier into device memory, bytes per second (defaults: host 25 GB/s, disk 5, shared 2). */
export type TierBandwidth = Record<OffloadTier, number>;
export const DEFAULT_TIER_BANDWIDTH: TierBandwidth = Object.freeze({ host: 25e9, disk: 5e9, shared: 2e9 });

/**
 * The router's credit for a block found on each tier, as a share of a device hit: Dynamo's defaults for host (0.75) and
 * disk (0.25); shared storage is slower still (2 GB/s vs 5) and reachable from every worker alike, so 0.1.
 */
export const TIER_CREDIT: readonly number[] = [1, 0.75, 0.25, 0.1];

/** What a worker exposes to the tiers: its id, slot, and device pool. */
export type TierWorker = {
  readonly id: string;
  readonly slot: number;
  readonly pool: import("./block-pool").BlockPool;
};

export interface TierHost {
  readonly now: number;
  emit(event: EventBody): void;
}

const MAX_HASHES = 16_384;
/** Queued requests' chains held on a worker at once stay under this share of its device blocks. */
const QUEUED_HOLD_SHARE = 0.2;

/** Per-tier counters of the run: blocks offloaded to and onboarded from each lower tier. */
export type TierCounters = { offloaded: number[]; onboarded: number[] };

export class ClusterTiers {
  private host = new Map<string, TierPool>();
  private disk = new Map<string, TierPool>();
  private readonly shared: TierPool | null;
  /** Bytes of one block's KV. */
  readonly blockBytes: number;
  readonly counters: TierCounters = { offloaded: [0, 0, 0, 0], onboarded: [0, 0, 0, 0] };
  /** Per worker: blocks brought in for queued requests that hold their chains (for the cap), and the references held. */
  private queuedHolds = new Map<string, number>();
  private queuedRefCount = new Map<string, number>();

  constructor(
    private core: TierHost,
    readonly config: TierConfig,
    readonly blockSize: number,
    kvBytesPerToken: number,
    readonly bandwidth: TierBandwidth = DEFAULT_TIER_BANDWIDTH,
  ) {
    this.blockBytes = blockSize * kvBytesPerToken;
    this.shared = config.shared_blocks > 0 ? new TierPool("shared", config.shared_blocks) : null;
  }

  /** Give a new worker its host and disk tiers and offload its device evictions into them. */
  attach(w: TierWorker): void {
    if (this.config.host_blocks > 0) this.host.set(w.id, new TierPool("host", this.config.host_blocks));
    if (this.config.disk_blocks > 0) this.disk.set(w.id, new TierPool("disk", this.config.disk_blocks));
    w.pool.offload = (hash, cls) => this.offload(w.id, hash, cls);
  }

  /** A worker left: its own tiers and what it put on the shared tier are gone (reported as `cleared`). */
  detach(w: TierWorker): void {
    const gone: [OffloadTier, string[]][] = [];
    const host = this.host.get(w.id);
    const disk = this.disk.get(w.id);
    if (host) gone.push(["host", host.dropOwner(w.id)]);
    if (disk) gone.push(["disk", disk.dropOwner(w.id)]);
    if (this.shared) gone.push(["shared", this.shared.dropOwner(w.id)]);
    this.host.delete(w.id);
    this.disk.delete(w.id);
    for (const [tier, hashes] of gone) this.emitHashes("kv.removed", w.id, tier, hashes, "cleared");
  }

  private pool(workerId: string, tier: OffloadTier): TierPool | null {
    if (tier === "shared") return this.shared;
    return (tier === "host" ? this.host : this.disk).get(workerId) ?? null;
  }

  private offload(workerId: string, hash: string, cls: RetentionClass): boolean {
    const o = cls.offload;
    if (!o) return false;
    const pool = this.pool(workerId, o.to);
    if (!pool || !pool.put(hash, cls.priority, o.ttlMs, this.core.now, workerId)) return false;
    this.counters.offloaded[o.to === "host" ? HOST : o.to === "disk" ? DISK : SHARED]!++;
    return true;
  }

  /** Tier code of block i of a request's chain for worker w (device first), or -1 when no tier holds it. */
  tierOf(w: TierWorker, req: Pick<SimRequest, "view">, i: number): number {
    const index = w.pool.index;
    const id = index.idAt(req.view, i);
    if (id >= 0 && (index.maskAt(id) & w.pool.bit) !== 0) return 0;
    const hash = req.view.seq[i]!;
    const now = this.core.now;
    if (this.host.get(w.id)?.has(hash, now)) return HOST;
    if (this.disk.get(w.id)?.has(hash, now)) return DISK;
    if (this.shared?.has(hash, now)) return SHARED;
    return -1;
  }

  /** The router's credited overlap of worker w: its device overlap plus, along the chain from there, each tier's credit per block. */
  creditedOverlap(w: TierWorker, req: Pick<SimRequest, "view" | "nBlocks">, deviceOverlap: number): number {
    let credit = deviceOverlap;
    for (let i = deviceOverlap; i < req.nBlocks; i++) {
      const t = this.tierOf(w, req, i);
      if (t < 0) break;
      credit += TIER_CREDIT[t]!;
    }
    return credit;
  }

  /** Milliseconds to bring `blocks` blocks from a tier (code) into device memory. */
  onboardMs(tier: number, blocks: number): number {
    if (tier === 0 || blocks === 0) return 0;
    const bw = this.bandwidth[TIER_CODES[tier] as OffloadTier];
    return ((blocks * this.blockBytes) / bw) * 1000;
  }

  /**
   * Plan a routed request's onboarding on worker w: the tier of each block from its device overlap on, along the chain
   * until no tier holds one (blocks in `incoming` count as device: a prefetch is bringing them; `onlyPrefetched`: stop
   * at a lower-tier block whose class does not say prefetch_on_resume).
   */
  plan(
    w: TierWorker,
    req: Pick<SimRequest, "view" | "nBlocks" | "classes" | "segments">,
    deviceOverlap: number,
    incoming: Uint8Array | null,
    onlyPrefetched = false,
  ): TierHit {
    const tiers: number[] = [];
    const moved = [0, 0, 0, 0];
    for (let i = deviceOverlap; i < req.nBlocks; i++) {
      const t = incoming?.[i] ? 0 : this.tierOf(w, req, i);
      if (t < 0 || (t > 0 && onlyPrefetched && !req.classes[req.segments[i]!]!.prefetch)) break;
      tiers.push(t);
      moved[t]!++;
    }
    let ms = 0;
    for (let t = 1; t < 4; t++) ms += this.onboardMs(t, moved[t]!);
    return { from: deviceOverlap, tiers: Uint8Array.from(tiers), prefetched: null, onboardMs: ms };
  }

  /**
   * Copy blocks [from, from + tiers.length) of a request's chain into w's device pool as cached, unreferenced blocks,
   * up to the first block no tier holds any more; emits kv.stored on device with `onboarded_from`. `marks` (optional)
   * gets a 1 at each block this call brought in. Returns the number of blocks brought in.
   */
  onboard(w: TierWorker, req: SimRequest, from: number, tiers: Uint8Array, marks: Uint8Array | null): number {
    const pool = w.pool;
    let lower = 0;
    for (let k = 0; k < tiers.length; k++) {
      const t = this.tierOf(w, req, from + k);
      if (t < 0) break;
      if (t > 0) lower++;
    }
    if (lower === 0) return 0;
    // Hold the chain's device prefix while room is made, so that making room does not evict the blocks it extends.
    const held = new BlockList();
    pool.acquirePrefix(req.view, from, req.classes, req.segments, held);
    if (held.length < from || !pool.makeRoom(lower)) {
      pool.release(held, this.core.now);
      return 0;
    }
    // Making room may have moved blocks of the range down a tier: bring in only what the room made holds.
    const room = pool.capacity - pool.used;
    const tierAt: number[] = [];
    let n = 0;
    for (let k = 0; k < tiers.length; k++) {
      const t = this.tierOf(w, req, from + k);
      if (t < 0 || (t > 0 && n === room)) break;
      if (t > 0) n++;
      tierAt.push(t);
    }
    const out = new BlockList();
    const created: number[] = [];
    pool.store(req.view, from, from + tierAt.length, req.classes, req.segments, out, created, req.owner);
    pool.release(out, this.core.now);
    pool.release(held, this.core.now);
    let start = 0;
    for (let k = 0; k < created.length; k++) {
      const i = created[k]!;
      const t = tierAt[i - from]!;
      this.counters.onboarded[t]!++;
      if (marks) marks[i] = 1;
      this.pool(w.id, TIER_CODES[t] as OffloadTier)?.touch(req.view.seq[i]!);
      const next = created[k + 1];
      if (next === undefined || next !== i + 1 || tierAt[next - from] !== t || k + 1 - start >= MAX_HASHES) {
        this.emitOnboarded(w.id, req, created[start]!, i + 1, t);
        start = k + 1;
      }
    }
    return created.length;
  }

  /**
   * Hold a queued request's cached chain on device until it is admitted (the `brought` blocks just onboarded or
   * prefetched for it must not be evicted by the admissions ahead of it), while the blocks brought for queued requests
   * stay under QUEUED_HOLD_SHARE of the worker's blocks.
   */
  holdQueued(w: TierWorker, req: SimRequest, brought: number): void {
    if (brought === 0) return;
    const total = (this.queuedHolds.get(w.id) ?? 0) + brought;
    if (total > w.pool.capacity * QUEUED_HOLD_SHARE) return;
    const held = new BlockList();
    w.pool.acquirePrefix(req.view, req.nBlocks, req.classes, req.segments, held);
    this.queuedHolds.set(w.id, total);
    this.queuedRefCount.set(w.id, (this.queuedRefCount.get(w.id) ?? 0) + held.length);
    req.onAdmit = (r) => {
      r.onAdmit = undefined;
      w.pool.release(held, this.core.now);
      this.queuedHolds.set(w.id, (this.queuedHolds.get(w.id) ?? 0) - brought);
      this.queuedRefCount.set(w.id, (this.queuedRefCount.get(w.id) ?? 0) - held.length);
    };
  }

  /** Block references held for queued requests on a worker (not decode load). */
  queuedRefs(workerId: string): number {
    return this.queuedRefCount.get(workerId) ?? 0;
  }

  private emitOnboarded(workerId: string, req: SimRequest, from: number, to: number, tier: number): void {
    const seq = req.view.seq;
    this.core.emit({
      kind: "kv.stored",
      ts: Math.round(this.core.now),
      worker_id: workerId,
      block_hashes: seq.slice(from, to),
      parent_hash: from > 0 ? seq[from - 1]! : null,
      retention_class: req.classes[req.segments[from]!]!.name,
      session_id: req.sessionId,
      onboarded_from: TIER_CODES[tier] as OffloadTier,
    });
  }

  /**
   * An agent or session ended: drop its chain's blocks whose class evicts on that event from every lower tier (as the
   * device pool does), reported as kv.removed with the trigger as reason. Returns how many were dropped.
   */
  dropOnEnd(
    chain: { seq: readonly string[]; n: number; classes: readonly RetentionClass[]; segments: readonly number[] },
    trigger: "agent_end" | "session_end",
  ): number {
    const pools = [...this.host.values(), ...this.disk.values(), ...(this.shared ? [this.shared] : [])];
    if (pools.length === 0) return 0;
    let dropped = 0;
    for (let i = 0; i < chain.n; i++) {
      const evictOn = chain.classes[chain.segments[i]!]!.evictOn;
      if (trigger === "agent_end" ? evictOn !== EVICT_AGENT_END : evictOn === EVICT_NEVER) continue;
      for (const p of pools) if (p.dropOnEnd(chain.seq[i]!, trigger)) dropped++;
    }
    return dropped;
  }

  /** Once a second: drop expired blocks on every tier. */
  tick(now: number): void {
    for (const p of this.host.values()) p.expire(now);
    for (const p of this.disk.values()) p.expire(now);
    this.shared?.expire(now);
  }

  /** Report blocks that entered or left the lower tiers since the last call. */
  flush(): void {
    for (const p of this.host.values()) this.flushPool(p);
    for (const p of this.disk.values()) this.flushPool(p);
    if (this.shared) this.flushPool(this.shared);
  }

  private flushPool(p: TierPool): void {
    const moves = p.drain();
    if (moves === null) return;
    const { stored, removed } = moves;
    for (const [owner, hashes] of stored) this.emitHashes("kv.stored", owner, p.tier, hashes, null);
    for (const [owner, r] of removed)
      for (const reason of ["capacity", "ttl", "agent_end", "session_end"] as const)
        this.emitHashes("kv.removed", owner, p.tier, r[reason], reason);
  }

  private emitHashes(
    kind: "kv.stored" | "kv.removed",
    workerId: string,
    tier: OffloadTier,
    hashes: string[],
    reason: "capacity" | "ttl" | "agent_end" | "session_end" | "cleared" | null,
  ): void {
    const ts = Math.round(this.core.now);
    for (let i = 0; i < hashes.length; i += MAX_HASHES) {
      const block_hashes = hashes.slice(i, i + MAX_HASHES);
      if (kind === "kv.stored")
        this.core.emit({ kind, ts, worker_id: workerId, block_hashes, parent_hash: null, storage_tier: tier });
      else this.core.emit({ kind, ts, worker_id: workerId, block_hashes, reason: reason!, storage_tier: tier });
    }
  }

  /** Blocks held per lower tier (sums over workers), for reports and tests. */
  sizes(): Record<OffloadTier, number> {
    let host = 0;
    let disk = 0;
    for (const p of this.host.values()) host += p.size;
    for (const p of this.disk.values()) disk += p.size;
    return { host, disk, shared: this.shared?.size ?? 0 };
  }
}
