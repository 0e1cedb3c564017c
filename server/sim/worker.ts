import { BlockPool } from "./block-pool";
import type { PrefixIndex } from "./prefix-index";
import type { SimRequest, WorkerRole, WorkerTiming } from "./types";

// One worker: a FIFO prefill server over its block pool and a decode batch. TTFT = queue wait +
// uncached prompt tokens / prefill rate + first-token step (fixed + proportional to the prompt);
// decode takes output tokens x inter-token latency, which grows with the batch.

export interface WorkerHost {
  readonly now: number;
  at(t: number, run: () => void): void;
  /** Blocks hashes[idx] of a request were newly cached on a worker. */
  stored(worker: Worker, req: SimRequest, created: number[]): void;
  /** Report blocks the pool removed since the last call. */
  flushRemoved(worker: Worker): void;
  /** The prefill worker is done; a decode worker must take over (disaggregated serving). */
  handoff(req: SimRequest): void;
  /** The request ended (ok, error or cancelled). */
  finished(req: SimRequest, worker: Worker): void;
  /** A draining worker has nothing left to do. */
  drained(worker: Worker): void;
}

export type WorkerState = "starting" | "ready" | "draining" | "down";

export class Worker {
  state: WorkerState = "starting";
  /** When the worker became ready (ms). */
  readySince = 0;
  readonly pool: BlockPool;
  private queue: SimRequest[] = [];
  private qHead = 0;
  private prefilling: SimRequest | null = null;
  private decodeWaiting: SimRequest[] = [];
  decoding = 0;
  /** Uncached prompt tokens queued or in prefill (the router's view of prefill load). */
  pendingPrefillTokens = 0;
  private workArea = 0;
  private workSince = 0;
  queryTokens = 0;
  hitTokens = 0;

  constructor(
    readonly id: string,
    readonly role: WorkerRole,
    readonly slot: number,
    capacity: number,
    index: PrefixIndex,
    readonly blockSize: number,
    readonly timing: WorkerTiming,
    private host: WorkerHost,
  ) {
    this.pool = new BlockPool(capacity, index, slot);
  }

  /** Announced and not yet gone (emits stats). */
  get up(): boolean {
    return this.state === "ready" || this.state === "draining";
  }

  get bit(): number {
    return this.pool.bit;
  }

  get waiting(): number {
    return this.queue.length - this.qHead + this.decodeWaiting.length;
  }

  get running(): number {
    return (this.prefilling ? 1 : 0) + this.decoding;
  }

  get idle(): boolean {
    return this.waiting === 0 && this.running === 0;
  }

  /** TTFT of a prompt on an idle worker with `cached` of its tokens already in cache. */
  static firstTokenMs(timing: WorkerTiming, inputTokens: number, cached: number): number {
    return ((inputTokens - cached) / timing.prefillTokensPerSecond) * 1000 + timing.firstTokenBaseMs + timing.firstTokenPerPromptTokenMs * inputTokens;
  }

  /** Queue a routed request for prefill. */
  enqueue(req: SimRequest, expectedPrefill: number): void {
    req.workerId = this.id;
    req.expectedPrefill = expectedPrefill;
    this.addPrefillWork(expectedPrefill);
    this.queue.push(req);
    this.pump();
  }

  /** Accept a prefilled request for decode (decode role). */
  acceptDecode(req: SimRequest): void {
    this.decodeWaiting.push(req);
    this.pump();
  }

  /** Expire TTLs and report removals (called every simulated second). */
  tick(now: number): void {
    this.pool.expire(now);
    this.host.flushRemoved(this);
    this.pump();
  }

  /** Start whatever can start now. */
  pump(): void {
    while (this.decodeWaiting.length && this.startDecodeOnly(this.decodeWaiting[0]!)) this.decodeWaiting.shift();
    if (!this.prefilling && this.qHead < this.queue.length) this.startPrefill();
    if (this.state === "draining" && this.idle) this.host.drained(this);
  }

  private startPrefill(): void {
    const req = this.queue[this.qHead]!;
    const pool = this.pool;
    const outBlocks = this.role === "aggregated" ? Math.ceil(req.outputTokens / this.blockSize) : 0;
    if (req.nBlocks + outBlocks > pool.capacity - pool.pinnedCount) {
      this.dequeue();
      this.addPrefillWork(-req.expectedPrefill);
      this.fail(req);
      return;
    }
    // Hold the matched prefix first so that making room cannot evict it.
    const matched = pool.acquirePrefix(req.view, req.nBlocks, req.classes, req.segments, req.blocks);
    const need = req.nBlocks - matched + outBlocks;
    if (!pool.makeRoom(need)) {
      pool.release(req.blocks, this.host.now);
      req.blocks.length = 0;
      this.host.flushRemoved(this);
      return;
    }
    this.host.flushRemoved(this);
    this.dequeue();
    pool.reserved += need;
    req.reservedOut = outBlocks;
    const now = this.host.now;
    req.cachedTokens = matched * this.blockSize;
    this.queryTokens += req.inputTokens;
    this.hitTokens += req.cachedTokens;
    this.prefilling = req;
    const done = now + Worker.firstTokenMs(this.timing, req.inputTokens, req.cachedTokens);
    this.host.at(done, () => this.prefillDone(req, matched));
  }

  private dequeue(): void {
    this.qHead++;
    if (this.qHead > 256 && this.qHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.qHead);
      this.qHead = 0;
    }
  }

  private addPrefillWork(tokens: number): void {
    const now = this.host.now;
    this.workArea += this.pendingPrefillTokens * (now - this.workSince);
    this.workSince = now;
    this.pendingPrefillTokens += tokens;
  }

  /** Time-averaged prefill tokens queued or in prefill since the last call (tokens). */
  takeMeanPrefillWork(since: number): number {
    const now = this.host.now;
    this.addPrefillWork(0);
    const start = Math.max(since, this.readySince);
    const mean = now > start ? this.workArea / (now - start) : this.pendingPrefillTokens;
    this.workArea = 0;
    return mean;
  }

  private prefillDone(req: SimRequest, matched: number): void {
    const now = this.host.now;
    const pool = this.pool;
    this.prefilling = null;
    this.addPrefillWork(-req.expectedPrefill);
    pool.reserved -= req.nBlocks - matched;
    const created: number[] = [];
    pool.store(req.view, matched, req.nBlocks, req.classes, req.segments, req.blocks, created, req.owner);
    if (created.length) this.host.stored(this, req, created);
    if (req.outcome === "error") {
      this.releaseAll(req, now);
      req.outputTokens = 0;
      req.reasoningTokens = 0;
      req.finishedAt = now;
      this.host.finished(req, this);
    } else if (this.role === "prefill") {
      this.releaseAll(req, now);
      this.host.handoff(req);
    } else {
      req.firstTokenAt = now;
      this.startDecode(req, now);
    }
    this.pump();
  }

  private startDecodeOnly(req: SimRequest): boolean {
    const need = req.nBlocks + Math.ceil(req.outputTokens / this.blockSize);
    if (!this.pool.makeRoom(need)) return false;
    this.pool.reserved += need;
    req.reservedOut = need;
    req.workerId = this.id;
    const now = this.host.now;
    req.firstTokenAt = now + req.inputTokens * this.timing.transferPerTokenMs + this.timing.itlBaseMs;
    this.startDecode(req, req.firstTokenAt);
    return true;
  }

  private startDecode(req: SimRequest, firstTokenAt: number): void {
    this.decoding++;
    const itl = this.timing.itlBaseMs + this.timing.itlPerRunningMs * this.running;
    req.finishedAt = firstTokenAt + Math.max(0, req.outputTokens - 1) * itl;
    req.onFirstToken?.(req);
    this.host.at(req.finishedAt, () => this.decodeDone(req));
  }

  private decodeDone(req: SimRequest): void {
    this.decoding--;
    this.releaseAll(req, this.host.now);
    this.host.finished(req, this);
    this.pump();
  }

  private releaseAll(req: SimRequest, now: number): void {
    this.pool.release(req.blocks, now);
    req.blocks = [];
    this.pool.reserved -= req.reservedOut;
    req.reservedOut = 0;
  }

  /** The prompt can never fit this worker's KV cache. */
  private fail(req: SimRequest): void {
    req.outcome = "error";
    req.finishReason = "context_too_long";
    req.outputTokens = 0;
    req.reasoningTokens = 0;
    req.finishedAt = this.host.now;
    this.host.finished(req, this);
  }
}
