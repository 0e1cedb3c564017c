import { BlockList } from "./block-list";
import { BlockPool } from "./block-pool";
import { emitTokens } from "./itl";
import { reserveWindow } from "./pass-window";
import { PrefillLoad } from "./prefill-load";
import { RequestQueue } from "./request-queue";
import type { PrefixIndex } from "./prefix-index";
import { decodeMs, handoffMs, prefillMs, setupMs, type EngineTiming } from "./timing";
import type { SimRequest, WorkerRole } from "./types";
import type { PassRecord, WorkerHost, WorkerState } from "./worker-host";

// One worker as vLLM's scheduler runs it: forward passes one after another, each with a token
// budget. Running requests take their share first (one token per decode, the next chunk of an
// unfinished prompt), then waiting requests are admitted in order while their KV fits (cached
// prefix tokens count as computed). A failed KV allocation preempts the newest running request:
// its blocks are freed, its progress reset, and it goes back to the front of the queue. Every
// request whose KV is complete emits a token at the end of the pass. A run of identical decode-only
// passes is one event (a window) that an arrival cuts short at the end of the pass in progress.

export type { PassRecord, WorkerHost, WorkerState } from "./worker-host";

const MAX_WINDOW_PASSES = 4_096;
const WAITING = 0;
const RUNNING = 1;
const GONE = 2;

export class SimWorker {
  state: WorkerState = "starting";
  /** When the worker became ready (ms). */
  readySince = 0;
  readonly pool: BlockPool;
  private queue = new RequestQueue<SimRequest>();
  private runningList: SimRequest[] = [];
  /** Requests in setup or KV transfer, not yet schedulable. */
  private arriving = 0;
  private load = new PrefillLoad();
  queryTokens = 0;
  hitTokens = 0;
  /** Requests preempted on this worker (cumulative). */
  preemptions = 0;
  private passes = 0;
  private passTokens = 0;
  private lastPassTokens = 0;
  private busy = false;
  private gen = 0;
  /**
   * The planned pass: entries[0, nEntries) with their tokens. A count rather than `length = 0` per pass: a JS array
   * cut to length 0 lets its storage go, and every pass grew both lists again.
   */
  private entries: SimRequest[] = [];
  private tokens: number[] = [];
  private nEntries = 0;
  private winStart = 0;
  private winPass = 0;
  private winCount = 1;
  /**
   * Scratch list of the prompt positions a store created (read by the host before the next store), reused at its
   * largest length: a JS array cut to length 0 lets its storage go, and every store grew it again.
   */
  private created: number[] = [];
  /** Observer of every scheduled pass (null in normal runs). */
  onPass: ((pass: PassRecord) => void) | null = null;

  constructor(
    readonly id: string,
    readonly role: WorkerRole,
    readonly slot: number,
    capacity: number,
    index: PrefixIndex,
    readonly blockSize: number,
    readonly timing: EngineTiming,
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
    return this.queue.length + this.arriving;
  }

  get running(): number {
    return this.runningList.length;
  }

  get idle(): boolean {
    return this.waiting === 0 && this.running === 0;
  }

  /** Queue a routed request: schedulable once its prompt is tokenized and hashed (and `extraMs` later: onboarding). */
  enqueue(req: SimRequest, expectedPrefill: number, extraMs = 0): void {
    req.workerId = this.id;
    req.expectedPrefill = expectedPrefill;
    req.target = req.inputTokens;
    this.addPrefillWork(expectedPrefill);
    this.arrive(req, setupMs(this.timing, req.inputTokens) + extraMs);
  }

  /** Accept a prefilled request for decode (decode role): schedulable once its KV has crossed the link. */
  acceptDecode(req: SimRequest): void {
    req.workerId = this.id;
    req.target = req.inputTokens;
    req.transferred = true;
    this.arrive(req, handoffMs(this.timing, req.inputTokens));
  }

  private arrive(req: SimRequest, delayMs: number): void {
    req.stage = WAITING;
    this.arriving++;
    this.host.at(this.host.now + delayMs, () => {
      this.arriving--;
      this.queue.push(req);
      this.kick();
    });
  }

  /** Expire TTLs and report removals (called every simulated second). */
  tick(now: number): void {
    this.pool.expire(now);
    this.host.flushRemoved(this);
    if (!this.busy) this.startPass();
  }

  /** Start a pass if idle, or cut a window of identical passes short so that new work joins the next one. */
  kick(): void {
    if (!this.busy) {
      this.busy = true;
      this.winCount = 1;
      this.host.at(this.host.now, () => this.startPass());
    } else if (this.winCount > 1) {
      const passes = Math.max(1, Math.ceil((this.host.now - this.winStart) / this.winPass));
      if (passes >= this.winCount) return;
      this.winCount = passes;
      const gen = ++this.gen;
      this.host.at(this.winStart + passes * this.winPass, () => this.endPass(gen));
    } else if (this.state === "draining" && this.idle) this.host.drained(this);
  }

  /** Mean tokens per pass scheduled since the last call, else those of the window still running (null: idle). */
  takeBatchTokens(): number | null {
    const mean = this.passes ? this.passTokens / this.passes : this.busy ? this.lastPassTokens : null;
    this.passes = this.passTokens = 0;
    return mean;
  }

  private startPass(): void {
    const { pool, runningList: running, entries, tokens } = this;
    const bs = this.blockSize;
    let ne = 0;
    let budget = this.timing.maxBatchedTokens;
    const before = this.preemptions;
    for (let i = 0; i < running.length && budget > 0; i++) {
      const r = running[i]!;
      const n = r.computed < r.target ? Math.min(r.target - r.computed, budget) : 1;
      if (!this.grow(r, r.computed + n)) break;
      entries[ne] = r;
      tokens[ne++] = n;
      budget -= n;
    }
    const preempted = this.preemptions > before;
    while (!preempted && this.queue.length > 0 && running.length < this.timing.maxSeqs && budget > 0) {
      const r = this.queue.front()!;
      if (!this.fitsEver(r)) {
        this.queue.shift();
        this.finish(r, "context_too_long");
        continue;
      }
      let matched = 0;
      if (!r.transferred && this.role !== "decode") {
        r.blocks = pool.blockList(r.owner, r.view, r.blocks);
        r.blocks.reserve(r.nBlocks);
        matched = pool.acquirePrefix(r.view, r.nBlocks, r.classes, r.segments, r.blocks, r.owner);
      }
      const computed = r.transferred ? r.target : Math.min(matched * bs, r.target - 1);
      const n = r.transferred ? 1 : Math.min(r.target - computed, budget);
      const extra = Math.ceil((computed + n) / bs) - matched;
      if (!pool.makeRoom(extra)) {
        this.releaseBlocks(r);
        break;
      }
      this.queue.shift();
      pool.reserved += extra;
      r.reservedOut = extra;
      r.computed = computed;
      r.stage = RUNNING;
      if (r.onAdmit) r.onAdmit(r);
      if (r.preemptions === 0 && !r.transferred) {
        r.cachedTokens = matched * bs;
        this.queryTokens += r.inputTokens;
        this.hitTokens += r.cachedTokens;
      }
      running.push(r);
      entries[ne] = r;
      tokens[ne++] = n;
      budget -= n;
    }
    this.nEntries = ne;
    this.host.flushRemoved(this);
    if (ne === 0) {
      this.busy = false;
      if (this.state === "draining" && this.idle) this.host.drained(this);
      return;
    }
    this.schedule(preempted);
  }

  /** Time the planned pass; decode-only passes with nothing to admit repeat until the first request finishes. */
  private schedule(preempted: boolean): void {
    const { entries, tokens, nEntries } = this;
    let newTokens = 0;
    let kv = 0;
    let seqs = 0;
    let passes = MAX_WINDOW_PASSES;
    for (let i = 0; i < nEntries; i++) {
      const r = entries[i]!;
      if (r.computed < r.target) newTokens += tokens[i]!;
      else {
        kv += r.computed;
        seqs++;
        passes = Math.min(passes, r.outputTokens - r.generated);
      }
    }
    const pass = Math.max(0.001, prefillMs(this.timing, newTokens) + decodeMs(this.timing, kv, seqs));
    if (newTokens > 0 || preempted || passes <= 1) passes = 1;
    else {
      passes = reserveWindow(this.pool, entries, nEntries, passes, this.blockSize);
      this.host.flushRemoved(this);
    }
    this.busy = true;
    this.winStart = this.host.now;
    this.winPass = pass;
    this.winCount = passes;
    this.passes += passes;
    this.passTokens += passes * (newTokens + seqs);
    this.lastPassTokens = newTokens + seqs;
    if (this.onPass)
      this.onPass({
        at: this.host.now,
        passes,
        passMs: pass,
        entries: entries
          .slice(0, nEntries)
          .map((r, i) => ({ id: r.id, tokens: tokens[i]!, prefill: r.computed < r.target })),
      });
    const gen = ++this.gen;
    this.host.at(this.host.now + passes * pass, () => this.endPass(gen));
  }

  private endPass(gen: number): void {
    if (gen !== this.gen) return;
    const { entries, tokens, nEntries } = this;
    const t0 = this.winStart;
    const pass = this.winPass;
    const passes = this.winCount;
    let gone = false;
    let handoffs: SimRequest[] | null = null;
    for (let i = 0; i < nEntries; i++) {
      const r = entries[i]!;
      if (r.stage !== RUNNING) continue;
      if (r.computed < r.target) {
        r.computed += tokens[i]!;
        this.storeComputed(r);
        if (r.computed < r.target) continue;
        if (r.expectedPrefill > 0) this.addPrefillWork(-r.expectedPrefill);
        r.expectedPrefill = 0;
        if (r.outcome === "error") {
          gone = this.finish(r, null);
          continue;
        }
        if (this.role === "prefill") {
          gone = this.leave(r);
          (handoffs ??= []).push(r);
          continue;
        }
        emitTokens(r, 1, t0, pass);
      } else {
        emitTokens(r, passes, t0, pass);
        r.computed += passes;
      }
      if (r.generated >= r.outputTokens) gone = this.finish(r, null);
    }
    if (gone) {
      const list = this.runningList;
      let k = 0;
      for (let i = 0; i < list.length; i++) if (list[i]!.stage === RUNNING) list[k++] = list[i]!;
      list.length = k;
    }
    if (handoffs !== null) for (const r of handoffs) this.host.handoff(r);
    this.busy = false;
    this.startPass();
  }

  /** Cache the prompt blocks the request has completed (not on decode workers, which receive KV). */
  private storeComputed(r: SimRequest): void {
    if (this.role === "decode") return;
    const to = Math.min(r.nBlocks, Math.floor(r.computed / this.blockSize));
    const from = r.blocks.length;
    if (to <= from) return;
    const created = this.created;
    const n = this.pool.store(r.view, from, to, r.classes, r.segments, r.blocks, created, r.owner);
    const moved = Math.min(to - from, r.reservedOut);
    r.reservedOut -= moved;
    this.pool.reserved -= moved;
    if (n > 0) this.host.stored(this, r, created, n);
  }

  /** Make room for the request to hold `total` tokens, preempting the newest running requests; false if it was preempted itself. */
  private grow(r: SimRequest, total: number): boolean {
    const extra = Math.ceil(total / this.blockSize) - r.blocks.length - r.reservedOut;
    if (extra <= 0) return true;
    while (!this.pool.makeRoom(extra)) {
      const victim = this.runningList[this.runningList.length - 1]!;
      this.preempt(victim);
      if (victim === r) return false;
    }
    this.pool.reserved += extra;
    r.reservedOut += extra;
    return true;
  }

  private preempt(r: SimRequest): void {
    this.runningList.pop();
    this.releaseAll(r);
    r.stage = WAITING;
    r.computed = 0;
    r.target = r.inputTokens + r.generated;
    r.transferred = false;
    r.preemptions++;
    this.preemptions++;
    this.queue.putFront(r);
  }

  private fitsEver(r: SimRequest): boolean {
    const tokens = r.inputTokens + (this.role === "prefill" ? 0 : r.outputTokens);
    return Math.ceil(tokens / this.blockSize) <= this.pool.capacity - this.pool.pinnedCount;
  }

  /** Uncached prompt tokens queued or in prefill (the router's view of prefill load). */
  get pendingPrefillTokens(): number {
    return this.load.pending;
  }

  /** Time-averaged prefill tokens queued or in prefill since the last call (tokens). */
  takeMeanPrefillWork(since: number): number {
    return this.load.takeMean(Math.max(since, this.readySince), this.host.now);
  }

  private addPrefillWork(tokens: number): void {
    this.load.add(tokens, this.host.now);
  }

  /** The request leaves the running set (the caller filters the list); its blocks go back to the pool. */
  private leave(r: SimRequest): boolean {
    r.stage = GONE;
    this.releaseAll(r);
    return true;
  }

  /** End a request: finished streaming, failed after prefill, or refused (`reason`: it can never fit). */
  private finish(r: SimRequest, reason: string | null): boolean {
    const wasRunning = r.stage === RUNNING;
    this.leave(r);
    if (r.expectedPrefill > 0) this.addPrefillWork(-r.expectedPrefill);
    r.expectedPrefill = 0;
    if (reason || r.outcome === "error") {
      r.outcome = "error";
      if (reason) r.finishReason = reason;
      r.outputTokens = 0;
      r.reasoningTokens = 0;
    }
    r.finishedAt = this.host.now;
    if (r.outcome !== "error" && r.firstTokenAt !== null) r.onFirstToken?.(r);
    this.host.finished(r, this);
    return wasRunning;
  }

  private releaseAll(r: SimRequest): void {
    this.releaseBlocks(r);
    this.pool.reserved -= r.reservedOut;
    r.reservedOut = 0;
  }

  /** Drop the request's block references; they stay noted for its trajectory's next turn on this worker. */
  private releaseBlocks(r: SimRequest): void {
    this.pool.release(r.blocks, this.host.now, r.owner, r.view);
    // A list the pool did not keep for the trajectory's next turn is nobody's now.
    if (r.owner.heldBlocks !== r.blocks) r.blocks.recycle();
    r.blocks = new BlockList();
  }
}
