import { describe, expect, it } from "vitest";
import type { AlertState } from "./evaluate";
import { alertmanagerBody, RESEND_MS, signWebhook, verifyWebhook, webhookBody } from "./payload";

const alert: AlertState = {
  rule: "preemptions",
  key: "worker=prod/w1",
  labels: { cluster: "prod", worker: "w1", "k8s.pod": "p-1" },
  state: "firing",
  activeAt: Date.UTC(2026, 11, 5, 12, 0, 0),
  firedAt: Date.UTC(2026, 11, 5, 12, 1, 0),
  value: 9,
  summary: "w1 preempts 9/min",
  link: "/workers/prod%2Fw1?range=1h",
  severity: "critical",
};
const NOW = Date.UTC(2026, 11, 5, 12, 5, 0);

describe("alertmanagerBody", () => {
  it("gives labels, annotations, a link back and an endsAt ahead while firing", () => {
    expect(alertmanagerBody([{ alert, resolvedAt: null }], NOW, "https://sy.example/")).toEqual([
      {
        labels: {
          cluster: "prod",
          worker: "w1",
          k8s_pod: "p-1",
          alertname: "preemptions",
          severity: "critical",
          source: "switchyard",
        },
        annotations: {
          summary: "w1 preempts 9/min",
          value: "9",
          link: "https://sy.example/workers/prod%2Fw1?range=1h",
        },
        startsAt: "2026-12-05T12:01:00.000Z",
        endsAt: new Date(NOW + 4 * RESEND_MS).toISOString(),
        generatorURL: "https://sy.example/alerts?rule=preemptions",
      },
    ]);
  });

  it("ends a resolved alert at its resolution", () => {
    const [a] = alertmanagerBody([{ alert, resolvedAt: NOW - 1000 }], NOW, "http://x");
    expect(a!.endsAt).toBe(new Date(NOW - 1000).toISOString());
  });
});

describe("webhooks", () => {
  const body = webhookBody([{ alert, resolvedAt: null }], NOW, "http://x");
  const ts = Math.floor(NOW / 1000);
  const signature = signWebhook("s3cret", ts, body);

  it("send the alerts with their status, signed over timestamp and body", () => {
    expect(JSON.parse(body)).toMatchObject({
      version: "switchyard.alerts.v1",
      alerts: [{ status: "firing", labels: { alertname: "preemptions" } }],
    });
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhook("s3cret", { signature, timestamp: String(ts) }, body, ts + 10)).toBe(true);
  });

  it.each([
    ["another secret", "other", signature, String(ts), body, ts],
    ["a changed body", "s3cret", signature, String(ts), body.replace("firing", "resolved"), ts],
    ["a replay 10 minutes later", "s3cret", signature, String(ts), body, ts + 600],
    ["a changed timestamp", "s3cret", signature, String(ts + 1), body, ts],
    ["no signature", "s3cret", null, String(ts), body, ts],
    ["no timestamp", "s3cret", signature, null, body, ts],
    ["a truncated signature", "s3cret", signature.slice(0, 20), String(ts), body, ts],
  ])("refuse %s", (_, secret, sig, stamp, b, now) => {
    expect(verifyWebhook(secret, { signature: sig, timestamp: stamp }, b, now)).toBe(false);
  });
});
