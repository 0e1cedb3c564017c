import { describe, expect, it } from "vitest";
import type { OutboundInit, OutboundReply } from "../outbound/fetch";
import { OutboundError } from "../outbound/failure";
import type { AlertState } from "./evaluate";
import {
  backoffMs,
  MAX_ATTEMPTS,
  MAX_PER_FLUSH,
  MAX_QUEUED_PER_RECEIVER,
  Outbox,
  replyReason,
  type Receiver,
} from "./outbox";
import { verifyWebhook } from "./payload";

const alert: AlertState = {
  rule: "preemptions",
  key: "w1",
  labels: { cluster: "default", worker: "w1" },
  state: "firing",
  activeAt: 0,
  firedAt: 0,
  value: 9,
  summary: "w1 preempts 9/min",
  link: "/workers/w1",
  severity: "critical",
};
const am: Receiver = { id: "am", kind: "alertmanager", url: "http://am.example:9093/" };

/** A receiver answering from a script (a status, or an error thrown), recording what it got. */
function fake(answers: (number | "down")[]) {
  const got: { url: string; init: OutboundInit }[] = [];
  const send = async (url: string, init: OutboundInit): Promise<OutboundReply> => {
    got.push({ url, init });
    const a = answers.shift() ?? 200;
    if (a === "down") throw new OutboundError("connection refused");
    return { status: a, contentType: "application/json", text: a === 400 ? '{"error":"bad labels"}' : "" };
  };
  return { send, got };
}

describe("replyReason", () => {
  it.each([
    [
      { status: 400, contentType: "application/json", text: '"start time must be before end time"' },
      "HTTP 400: start time must be before end time",
    ],
    [{ status: 422, contentType: "application/json; charset=utf-8", text: '{"message":"bad"}' }, "HTTP 422: bad"],
    [{ status: 400, contentType: "text/html", text: "<html>secret internal page</html>" }, "HTTP 400"],
    [{ status: 404, contentType: "application/json", text: '{"data":"x"}' }, "HTTP 404"],
    [{ status: 400, contentType: "application/json", text: "not json" }, "HTTP 400"],
    [
      { status: 400, contentType: "application/json", text: JSON.stringify("x".repeat(500)) },
      `HTTP 400: ${"x".repeat(200)}`,
    ],
  ])("%j reads %j", (reply, want) => expect(replyReason(reply)).toBe(want));
});

describe("Outbox", () => {
  it("posts Alertmanager's v2 body to /api/v2/alerts and counts it sent", async () => {
    const f = fake([200]);
    const box = new Outbox(f.send, "http://sy", () => 1_000);
    box.enqueue(am, [{ alert, resolvedAt: null }]);
    await box.flush([am]);
    expect(f.got[0]!.url).toBe("http://am.example:9093/api/v2/alerts");
    expect(JSON.parse(f.got[0]!.init.body!)[0].labels).toMatchObject({ alertname: "preemptions", worker: "w1" });
    expect(box.state("am")).toMatchObject({ queued: 0, sent: 1, failed: 0, lastOkAt: 1_000, lastError: null });
  });

  it.each([
    ["a 500", 500, true],
    ["a 503", 503, true],
    ["a 429", 429, true],
    ["a 408", 408, true],
    ["no answer", "down" as const, true],
    ["a 400", 400, false],
    ["a 404", 404, false],
  ])("after %s: retried with backoff = %s", async (_, answer, retried) => {
    let now = 0;
    const f = fake([answer]);
    const box = new Outbox(f.send, "http://sy", () => now);
    box.enqueue(am, [{ alert, resolvedAt: null }]);
    await box.flush([am]);
    const s = box.state("am");
    expect(s.lastError?.status).toBe(answer === "down" ? null : answer);
    if (answer === 400) expect(s.lastError?.reason).toBe("HTTP 400: bad labels");
    expect([s.queued, s.failed]).toEqual(retried ? [1, 0] : [0, 1]);
    if (!retried) return;
    // Not before its backoff; then delivered.
    await box.flush([am]);
    expect(f.got).toHaveLength(1);
    now = backoffMs(1);
    await box.flush([am]);
    expect(f.got).toHaveLength(2);
    expect(box.state("am")).toMatchObject({ queued: 0, sent: 1 });
  });

  it(`gives a delivery up after ${MAX_ATTEMPTS} attempts, backing off 1 s, 2 s, 4 s … at most 5 min`, async () => {
    expect([1, 2, 3, 4, 10, 20].map(backoffMs)).toEqual([1_000, 2_000, 4_000, 8_000, 300_000, 300_000]);
    let now = 0;
    const f = fake(Array.from({ length: MAX_ATTEMPTS }, () => 503));
    const box = new Outbox(f.send, "http://sy", () => now);
    box.enqueue(am, [{ alert, resolvedAt: null }]);
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await box.flush([am]);
      now += 300_000;
    }
    expect(f.got).toHaveLength(MAX_ATTEMPTS);
    expect(box.state("am")).toMatchObject({ queued: 0, failed: 1, sent: 0 });
  });

  it(`keeps at most ${MAX_QUEUED_PER_RECEIVER} deliveries per receiver, dropping the oldest and counting them`, async () => {
    const f = fake([]);
    const box = new Outbox(f.send, "http://sy", () => 0);
    for (let i = 0; i < MAX_QUEUED_PER_RECEIVER + 3; i++)
      box.enqueue(am, [{ alert: { ...alert, value: i }, resolvedAt: null }]);
    expect(box.state("am")).toMatchObject({ queued: MAX_QUEUED_PER_RECEIVER, dropped: 3 });
    await box.flush([am]);
    expect(JSON.parse(f.got[0]!.init.body!)[0].annotations.value).toBe("3");
  });

  it(`sends what is due oldest first in one flush, at most ${MAX_PER_FLUSH}, stopping at a failure`, async () => {
    const f = fake([200, 200, 503]);
    const box = new Outbox(f.send, "http://sy", () => 0);
    for (let i = 0; i < 5; i++) box.enqueue(am, [{ alert: { ...alert, value: i }, resolvedAt: null }]);
    await box.flush([am]);
    expect(f.got.map((g) => JSON.parse(g.init.body!)[0].annotations.value)).toEqual(["0", "1", "2"]);
    expect(box.state("am")).toMatchObject({ sent: 2, queued: 3 });
    const many = new Outbox(fake([]).send, "http://sy", () => 0);
    for (let i = 0; i < MAX_PER_FLUSH + 4; i++) many.enqueue(am, [{ alert, resolvedAt: null }]);
    await many.flush([am]);
    expect(many.state("am")).toMatchObject({ sent: MAX_PER_FLUSH, queued: 4 });
  });

  it("signs a webhook's body so the receiver can check it", async () => {
    const f = fake([204]);
    const hook: Receiver = { id: "hook", kind: "webhook", url: "https://chat.example/hook", secret: "s3cret-value" };
    const box = new Outbox(f.send, "http://sy", () => 1_764_000_000_000);
    box.enqueue(hook, [{ alert, resolvedAt: null }]);
    await box.flush([hook]);
    const { url, init } = f.got[0]!;
    expect(url).toBe("https://chat.example/hook");
    const h = init.headers!;
    expect(
      verifyWebhook(
        "s3cret-value",
        { signature: h["x-switchyard-signature"]!, timestamp: h["x-switchyard-timestamp"]! },
        init.body!,
        1_764_000_000,
      ),
    ).toBe(true);
    expect(box.state("hook").sent).toBe(1);
  });

  it("a receiver that is down does not hold back another", async () => {
    let release = () => {};
    const slow = new Promise<void>((r) => (release = r));
    const box = new Outbox(
      async (url) => {
        if (url.includes("down.example")) await slow;
        return { status: 200, contentType: "", text: "" };
      },
      "http://sy",
      () => 0,
    );
    const down: Receiver = { id: "down", kind: "alertmanager", url: "http://down.example" };
    box.enqueue(down, [{ alert, resolvedAt: null }]);
    box.enqueue(am, [{ alert, resolvedAt: null }]);
    const pending = box.flush([down]);
    await box.flush([am]);
    expect(box.state("am").sent).toBe(1);
    expect(box.state("down").sent).toBe(0);
    release();
    await pending;
    expect(box.state("down").sent).toBe(1);
  });
});
