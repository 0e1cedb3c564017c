import { SIM_BUFFER_EVENTS, SIM_BUFFER_BYTES } from "../../lib/memory-bounds";

// Delivery of NDJSON lines to the dashboard's /api/ingest: batches of at most 1000 events (and a
// byte cap below the ingest limit), retried with exponential backoff. While the dashboard is
// unreachable the lines wait in a bounded buffer; when it overflows the oldest lines are dropped,
// counted and logged (never silently), and the total is logged again once delivery resumes. A compact request the
// dashboard refuses for its prefix (`unknown_prefix`: it lacks the named earlier request; `invalid_prefix`: it cannot
// take that request as the base) is re-sent with full lists.

/** Request headers carrying the cumulative count of events this sender dropped, and who it is. */
export const DROPPED_HEADER = "x-switchyard-dropped-events";
export const SOURCE_HEADER = "x-switchyard-source";

export type DeliveryOptions = {
  url: string;
  token: string;
  maxBatchEvents?: number;
  maxBatchBytes?: number;
  maxBufferEvents?: number;
  maxBufferBytes?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Wait this long for more lines before sending a partial batch. */
  lingerMs?: number;
  fetch?: typeof fetch;
  log?: (line: string) => void;
  now?: () => number;
  /** Names this sender in the dropped-events report (default "sim"). */
  source?: string;
};

export type DeliveryStats = {
  delivered: number;
  buffered: number;
  bufferedBytes: number;
  dropped: number;
  rejected: number;
  /** Compact requests re-sent with full lists after an unknown_prefix or invalid_prefix reply. */
  resent: number;
  failures: number;
  healthy: boolean;
};

export class Delivery {
  private lines: string[] = [];
  private head = 0;
  /** Lines ever removed from the head (sent or dropped): the absolute index of lines[head]. */
  private removedTotal = 0;
  private bytes = 0;
  private batchCap: number;
  private delivered = 0;
  private dropped = 0;
  private droppedAtOutage = 0;
  private rejected = 0;
  private resent = 0;
  /** Full-list forms of buffered compact lines, by absolute line index. */
  private readonly fallbacks = new Map<number, () => string>();
  private failures = 0;
  private healthy = true;
  private downSince: number | null = null;
  private lastDropLog = -Infinity;
  private running = false;
  /** The sender waits for a first line. */
  private empty = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private drainedWaiters: (() => void)[] = [];
  private readonly o: Required<DeliveryOptions>;

  constructor(options: DeliveryOptions) {
    this.o = {
      source: "sim",
      maxBatchEvents: 1000,
      maxBatchBytes: 4 * 1024 * 1024,
      maxBufferEvents: SIM_BUFFER_EVENTS,
      maxBufferBytes: SIM_BUFFER_BYTES,
      initialBackoffMs: 500,
      maxBackoffMs: 30_000,
      lingerMs: 200,
      fetch: globalThis.fetch.bind(globalThis),
      log: (line) => console.error(line),
      now: () => Date.now(),
      ...options,
    };
    this.batchCap = this.o.maxBatchEvents;
  }

  get stats(): DeliveryStats {
    return {
      delivered: this.delivered,
      buffered: this.size,
      bufferedBytes: this.bytes,
      dropped: this.dropped,
      rejected: this.rejected,
      resent: this.resent,
      failures: this.failures,
      healthy: this.healthy,
    };
  }

  private get size(): number {
    return this.lines.length - this.head;
  }

  /** Queue one NDJSON line (no trailing newline); `full` builds the line to re-send if the dashboard lacks its prefix. */
  push(line: string, full: (() => string) | null = null): void {
    this.lines.push(line);
    if (full) this.fallbacks.set(this.removedTotal + this.size - 1, full);
    this.bytes += line.length + 1;
    while (this.size > this.o.maxBufferEvents || this.bytes > this.o.maxBufferBytes) {
      this.bytes -= this.lines[this.head]!.length + 1;
      this.fallbacks.delete(this.removedTotal);
      this.head++;
      this.removedTotal++;
      this.dropped++;
    }
    this.compact();
    if (this.dropped > this.droppedAtOutage && this.o.now() - this.lastDropLog > 10_000) {
      this.lastDropLog = this.o.now();
      this.o.log(
        `delivery: buffer full (${this.size} events, ${mib(this.bytes)} MiB) while the dashboard is unreachable; dropped ${this.dropped} oldest events so far`,
      );
    }
    if (this.empty || this.size >= this.o.maxBatchEvents) this.wake?.();
  }

  /** Start sending in the background. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Resolves when the buffer is below half its bound, or at once while the dashboard is down. */
  async backpressure(): Promise<void> {
    while (
      this.healthy &&
      this.running &&
      (this.size > this.o.maxBufferEvents / 2 || this.bytes > this.o.maxBufferBytes / 2)
    ) {
      await new Promise<void>((resolve) => this.drainedWaiters.push(resolve));
    }
  }

  /** Send what is buffered, giving up after `timeoutMs`; then stop. Returns the events left unsent. */
  async close(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.size > 0 && Date.now() < deadline) {
      this.wake?.();
      await sleep(Math.min(100, Math.max(1, deadline - Date.now())));
    }
    this.running = false;
    this.wake?.();
    await this.loop;
    const left = this.size;
    if (left > 0)
      this.o.log(
        `delivery: stopping with ${left} events not delivered (dashboard unreachable); ${this.dropped} dropped earlier`,
      );
    return left;
  }

  private async run(): Promise<void> {
    let backoff = this.o.initialBackoffMs;
    while (this.running) {
      if (this.size === 0) {
        this.empty = true;
        await this.idle(1_000);
        this.empty = false;
        continue;
      }
      if (this.size < this.o.maxBatchEvents && this.healthy) await this.idle(this.o.lingerMs);
      const start = this.removedTotal;
      const { count, body } = this.batch();
      const outcome = await this.post(body);
      if (outcome.ok) {
        const resend = outcome.prefixRefused.map((i) => this.fallbacks.get(start + i)).filter((f) => f !== undefined);
        for (let i = start; i < start + count; i++) this.fallbacks.delete(i);
        this.take(start + count - this.removedTotal);
        this.delivered += count - outcome.rejected;
        this.rejected += outcome.rejected - resend.length;
        this.resent += resend.length;
        for (const full of resend) this.push(full());
        this.recovered();
        backoff = this.o.initialBackoffMs;
        continue;
      }
      this.failures++;
      if (outcome.tooLarge && this.batchCap > 1) this.batchCap = Math.max(1, Math.floor(count / 2));
      if (this.healthy || this.failures % 20 === 0)
        this.o.log(
          `delivery: ${outcome.error}; ${this.size} events buffered, retrying in ${Math.round(backoff / 100) / 10} s`,
        );
      if (this.healthy) {
        this.healthy = false;
        this.downSince = this.o.now();
        this.droppedAtOutage = this.dropped;
      }
      for (const resolve of this.drainedWaiters.splice(0)) resolve();
      await this.idle(outcome.retryAfterMs ?? backoff, true);
      backoff = Math.min(this.o.maxBackoffMs, backoff * 2);
    }
  }

  private recovered(): void {
    if (!this.healthy) {
      const lost = this.dropped - this.droppedAtOutage;
      const secs = Math.round((this.o.now() - (this.downSince ?? this.o.now())) / 1000);
      this.o.log(
        `delivery: dashboard reachable again after ${secs} s; ${lost ? `${lost} events were dropped (oldest first) because the buffer was full` : "no events were lost"}`,
      );
      this.healthy = true;
      this.downSince = null;
    }
    if (this.size <= this.o.maxBufferEvents / 2 && this.bytes <= this.o.maxBufferBytes / 2)
      for (const resolve of this.drainedWaiters.splice(0)) resolve();
  }

  private batch(): { count: number; body: string } {
    let count = 0;
    let bytes = 0;
    while (count < this.batchCap && this.head + count < this.lines.length) {
      const len = this.lines[this.head + count]!.length + 1;
      if (count > 0 && bytes + len > this.o.maxBatchBytes) break;
      bytes += len;
      count++;
    }
    return { count, body: this.lines.slice(this.head, this.head + count).join("\n") + "\n" };
  }

  /** Remove the first `count` lines once sent (fewer if the overflow dropped some meanwhile). */
  private take(count: number): void {
    const n = Math.max(0, Math.min(count, this.size));
    for (let i = 0; i < n; i++) this.bytes -= this.lines[this.head + i]!.length + 1;
    this.head += n;
    this.removedTotal += n;
    this.compact();
  }

  private compact(): void {
    if (this.head > 4096 && this.head * 2 > this.lines.length) {
      this.lines = this.lines.slice(this.head);
      this.head = 0;
    }
  }

  private async post(
    body: string,
  ): Promise<
    | { ok: true; rejected: number; prefixRefused: number[] }
    | { ok: false; error: string; retryAfterMs?: number; tooLarge?: boolean }
  > {
    try {
      const res = await this.o.fetch(this.o.url, {
        method: "POST",
        headers: {
          "content-type": "application/x-ndjson",
          authorization: `Bearer ${this.o.token}`,
          // Events lost to buffer overflow reach the dashboard with the first batches after an outage.
          [SOURCE_HEADER]: this.o.source,
          ...(this.dropped > 0 ? { [DROPPED_HEADER]: String(this.dropped) } : {}),
        },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.ok) return { ok: true, ...rejectedItems(text, this.o.log) };
      const retryAfter = Number(res.headers.get("retry-after"));
      return {
        ok: false,
        error: `dashboard answered ${res.status}${res.status === 401 ? " (check the ingest token)" : ""}`,
        tooLarge: res.status === 413,
        ...(retryAfter > 0 ? { retryAfterMs: Math.min(retryAfter * 1000, this.o.maxBackoffMs) } : {}),
      };
    } catch (err) {
      return {
        ok: false,
        error: `dashboard unreachable (${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)})`,
      };
    }
  }

  private idle(ms: number, hard = false): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = hard ? () => (this.running ? undefined : done()) : done;
    });
  }
}

/** What the dashboard refuses for a compact request's prefix: the request is re-sent with its full lists. */
const PREFIX_CODES = new Set(["unknown_prefix", "invalid_prefix"]);

/**
 * The rejected count of an ingest reply and the batch indexes refused for their prefix (re-sent in full). Other
 * rejected items are logged (they indicate a simulator bug).
 */
function rejectedItems(text: string, log: (line: string) => void): { rejected: number; prefixRefused: number[] } {
  try {
    const reply = JSON.parse(text) as {
      rejected?: number;
      items?: { index: number; status: string; code?: string; error?: string }[];
    };
    const rejected = reply.rejected ?? 0;
    const prefixRefused: number[] = [];
    if (rejected > 0) {
      for (const i of reply.items ?? [])
        if (i.status === "rejected" && PREFIX_CODES.has(i.code ?? "")) prefixRefused.push(i.index);
      const first = reply.items?.find((i) => i.status === "rejected" && !PREFIX_CODES.has(i.code ?? ""));
      if (first)
        log(
          `delivery: dashboard rejected ${rejected - prefixRefused.length} events (first: ${first.error ?? "no reason given"})`,
        );
    }
    return { rejected, prefixRefused };
  } catch {
    return { rejected: 0, prefixRefused: [] };
  }
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
