import { createHmac, timingSafeEqual } from "node:crypto";
import type { AlertState } from "./evaluate";

// What a receiver gets. Alertmanager: its v2 API's body (`POST /api/v2/alerts`, a JSON array of alerts with labels,
// annotations, startsAt, endsAt and generatorURL). A firing alert carries an endsAt a few resend intervals ahead, as
// Prometheus does: re-sent every RESEND_MS while it fires, it never lapses, and should Switchyard stop sending,
// Alertmanager resolves it by itself. A resolved alert is sent once more with endsAt at its resolution.
// Webhooks: the same alerts as one JSON document, signed with HMAC-SHA256 over "<timestamp>.<body>" so a receiver can
// check both who sent it and that it is not a replay. Pure.

/** How often a firing alert is sent again. */
export const RESEND_MS = 60_000;
/** A firing alert's endsAt: this many resend intervals ahead. */
const ENDS_AFTER_RESENDS = 4;

/** One alert as Alertmanager's v2 API takes it. */
export type AmAlert = {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
};

/** An alert to deliver: firing (sent, then again every RESEND_MS) or resolved (sent once). */
export type Outgoing = { alert: AlertState; resolvedAt: number | null };

const iso = (ms: number) => new Date(ms).toISOString();
/** Alertmanager's label names: [a-zA-Z_][a-zA-Z0-9_]*. */
const labelName = (k: string) => k.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^([^a-zA-Z_])/, "_$1");

/** The alert's labels: its series' labels, the rule as alertname, severity, and where it comes from. */
export function alertLabels(a: AlertState): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.labels)) labels[labelName(k)] = v;
  return { ...labels, alertname: a.rule, severity: a.severity, source: "switchyard" };
}

/** Alertmanager v2 alerts for `out` at `now`; links are made absolute on `baseUrl` (the console's public URL). */
export function alertmanagerBody(out: readonly Outgoing[], now: number, baseUrl: string): AmAlert[] {
  const base = baseUrl.replace(/\/+$/, "");
  return out.map(({ alert: a, resolvedAt }) => ({
    labels: alertLabels(a),
    annotations: {
      summary: a.summary,
      value: a.value === null ? "" : String(a.value),
      link: `${base}${a.link}`,
    },
    startsAt: iso(a.firedAt ?? a.activeAt),
    endsAt: iso(resolvedAt ?? now + ENDS_AFTER_RESENDS * RESEND_MS),
    generatorURL: `${base}/alerts?rule=${encodeURIComponent(a.rule)}`,
  }));
}

/** The JSON document a webhook receives. */
export function webhookBody(out: readonly Outgoing[], now: number, baseUrl: string): string {
  return JSON.stringify({
    version: "switchyard.alerts.v1",
    sent_at: iso(now),
    alerts: alertmanagerBody(out, now, baseUrl).map((a, i) => ({
      status: out[i]!.resolvedAt === null ? "firing" : "resolved",
      ...a,
    })),
  });
}

export const SIGNATURE_HEADER = "x-switchyard-signature";
export const TIMESTAMP_HEADER = "x-switchyard-timestamp";

/** The signature of a webhook body sent at `timestamp` (Unix seconds): `sha256=<hex>`. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/**
 * A receiver's check: the signature matches and the timestamp is within `toleranceSeconds` of `nowSeconds` (a body
 * replayed later fails). Constant-time comparison.
 */
export function verifyWebhook(
  secret: string,
  headers: { signature: string | null; timestamp: string | null },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const ts = Number(headers.timestamp);
  if (!headers.signature || !Number.isInteger(ts) || Math.abs(nowSeconds - ts) > toleranceSeconds) return false;
  const want = Buffer.from(signWebhook(secret, ts, body));
  const got = Buffer.from(headers.signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
