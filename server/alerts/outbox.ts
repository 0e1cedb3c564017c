import type { OutboundFetch } from "../outbound/fetch";
import {
  alertmanagerBody,
  signWebhook,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  webhookBody,
  type Outgoing,
} from "./payload";

// Deliveries to receivers, apart from evaluation: evaluation enqueues and returns, so a receiver that is down never
// slows it. Each receiver has its own queue, bounded (the oldest dropped and counted), one delivery in flight, and
// retries with exponential backoff. An answer that says the request itself is wrong (4xx other than 408 and 429) is
// not retried: it is kept with its reason for the Alerts page. The queue is held by the leader in memory; what fires
// or resolves is stored with the alert states, and a new leader re-sends what is firing at its first evaluation.

/** Deliveries one receiver may have waiting; a new one past it drops the oldest. */
export const MAX_QUEUED_PER_RECEIVER = 200;
/** Attempts of one delivery at most (the last waits the longest backoff). */
export const MAX_ATTEMPTS = 8;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 5 * 60_000;
/** A receiver's answer is read up to this size (it is kept only as a reason). */
const MAX_REPLY_BYTES = 64 * 1024;
const TIMEOUT_MS = 10_000;
/** Deliveries sent to one receiver in one flush at most (the rest wait for the next evaluation's). */
export const MAX_PER_FLUSH = 20;

export type Receiver =
  { id: string; kind: "alertmanager"; url: string } | { id: string; kind: "webhook"; url: string; secret: string };

type Delivery = { alerts: Outgoing[]; attempts: number; nextAt: number };

/** What the Alerts page and /metrics show per receiver. */
export type ReceiverState = {
  queued: number;
  sent: number;
  /** Deliveries given up: refused by the receiver (4xx) or out of attempts. */
  failed: number;
  /** Deliveries dropped because the queue was full. */
  dropped: number;
  lastOkAt: number | null;
  /** The last failure: when, the HTTP status (null: no answer), and why. */
  lastError: { at: number; status: number | null; reason: string } | null;
};

/**
 * Why a receiver refused, as shown on the Alerts and Sources pages: its own words only when it answers the way
 * Alertmanager does (a JSON string, or an object with a string `error` or `message`), capped at 200 characters; any
 * other body is not shown (a receiver URL must not become a way to read what some other server answers).
 */
export function replyReason(reply: { status: number; contentType: string; text: string }): string {
  let said: string | null = null;
  if (/json/i.test(reply.contentType))
    try {
      const v = JSON.parse(reply.text) as unknown;
      if (typeof v === "string") said = v;
      else if (v && typeof v === "object") {
        const o = v as { error?: unknown; message?: unknown };
        said = typeof o.error === "string" ? o.error : typeof o.message === "string" ? o.message : null;
      }
    } catch {
      said = null;
    }
  return said ? `HTTP ${reply.status}: ${said.slice(0, 200)}` : `HTTP ${reply.status}`;
}

/** The backoff before attempt `n + 1` after `n` failed attempts: 1 s, 2 s, 4 s … 5 min. */
export const backoffMs = (attempts: number) =>
  Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1));

/** Whether a failed answer is worth trying again (a server or rate problem, not a refusal of the request). */
export const retryable = (status: number | null) =>
  status === null || status >= 500 || status === 408 || status === 429;

export class Outbox {
  private queues = new Map<string, Delivery[]>();
  private states = new Map<string, ReceiverState>();
  private busy = new Set<string>();

  constructor(
    private send: OutboundFetch,
    private baseUrl: string,
    private now: () => number = Date.now,
  ) {}

  /** Queue `alerts` for `receiver` (nothing is sent here). */
  enqueue(receiver: Receiver, alerts: Outgoing[]): void {
    if (alerts.length === 0) return;
    const q = this.queues.get(receiver.id) ?? [];
    q.push({ alerts, attempts: 0, nextAt: this.now() });
    while (q.length > MAX_QUEUED_PER_RECEIVER) {
      q.shift();
      this.state(receiver.id).dropped++;
    }
    this.queues.set(receiver.id, q);
    this.state(receiver.id).queued = q.length;
  }

  /** The receiver's delivery state (zeros for one never used). */
  state(id: string): ReceiverState {
    let s = this.states.get(id);
    if (!s) this.states.set(id, (s = { queued: 0, sent: 0, failed: 0, dropped: 0, lastOkAt: null, lastError: null }));
    return s;
  }

  /** Forget a receiver that was removed. */
  forget(id: string): void {
    this.queues.delete(id);
    this.states.delete(id);
  }

  /**
   * Send each receiver's due deliveries oldest first, one in flight per receiver, until one fails or
   * MAX_PER_FLUSH went; resolves when these attempts end.
   */
  async flush(receivers: readonly Receiver[]): Promise<void> {
    await Promise.all(
      receivers.map(async (r) => {
        for (let i = 0; i < MAX_PER_FLUSH; i++) if (!(await this.attempt(r))) return;
      }),
    );
  }

  /** One attempt at the receiver's oldest due delivery; true when it went through. */
  private async attempt(r: Receiver): Promise<boolean> {
    const q = this.queues.get(r.id);
    const d = q?.[0];
    if (!q || !d || this.busy.has(r.id) || d.nextAt > this.now()) return false;
    this.busy.add(r.id);
    const s = this.state(r.id);
    d.attempts++;
    let status: number | null = null;
    let reason = "";
    try {
      const reply = await this.post(r, d.alerts);
      status = reply.status;
      reason = reply.status >= 200 && reply.status < 300 ? "" : replyReason(reply);
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
    } finally {
      this.busy.delete(r.id);
    }
    const at = this.now();
    const ok = status !== null && status >= 200 && status < 300;
    if (ok) {
      q.shift();
      s.sent++;
      s.lastOkAt = at;
    } else {
      s.lastError = { at, status, reason };
      if (!retryable(status) || d.attempts >= MAX_ATTEMPTS) {
        q.shift();
        s.failed++;
      } else d.nextAt = at + backoffMs(d.attempts);
    }
    s.queued = q.length;
    return ok;
  }

  private post(r: Receiver, alerts: Outgoing[]) {
    const now = this.now();
    if (r.kind === "alertmanager")
      return this.send(`${r.url.replace(/\/+$/, "")}/api/v2/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(alertmanagerBody(alerts, now, this.baseUrl)),
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_REPLY_BYTES,
      });
    const body = webhookBody(alerts, now, this.baseUrl);
    const ts = Math.floor(now / 1000);
    return this.send(r.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [TIMESTAMP_HEADER]: String(ts),
        [SIGNATURE_HEADER]: signWebhook(r.secret, ts, body),
      },
      body,
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_REPLY_BYTES,
    });
  }
}
