import { describe, expect, it } from "vitest";
import { OwnedBlocks, type RetentionClass } from "./block-pool";
import { PrefixIndex } from "./prefix-index";
import { EventQueue } from "./heap";
import { contentId } from "./hashing";
import { HashView, TokenStream } from "./stream";
import { DEFAULT_TIMING, type SimRequest } from "./types";
import { Worker, type WorkerHost } from "./worker";

const cls: RetentionClass = { name: "c", priority: 50, ttlMs: 0, pin: false, evictOn: 0 };

/** A worker on a private clock; returns it and a function that runs one request to completion. */
function setup(capacity = 20_000) {
  const queue = new EventQueue();
  const host = {
    now: 0,
    at: (t: number, run: () => void) => queue.push(t, run),
    stored: () => {},
    flushRemoved: () => {},
    handoff: () => {},
    finished: (req: SimRequest) => done.push(req),
    drained: () => {},
  } satisfies WorkerHost;
  const done: SimRequest[] = [];
  const worker = new Worker("w1", "aggregated", 0, capacity, new PrefixIndex(), 64, DEFAULT_TIMING, host);
  worker.state = "ready";
  const drain = () => {
    for (let e = queue.pop(); e; e = queue.pop()) {
      host.now = e.t;
      e.run();
    }
  };
  const run = (stream: TokenStream, view: HashView, output = 100): SimRequest => {
    view.extend(stream);
    const req = request(stream, view, output, host.now);
    worker.enqueue(req, req.inputTokens);
    drain();
    return done.at(-1)!;
  };
  return { worker, run, drain };
}

function request(stream: TokenStream, view: HashView, output: number, now: number): SimRequest {
  return {
    id: "r", sessionId: "s", trajectoryId: "t", parentTrajectoryId: undefined, sessionType: "x", harness: "claude_code", api: "messages",
    view, segments: stream.segments, nBlocks: stream.contents.length, inputTokens: stream.tokens, outputTokens: output, reasoningTokens: 0,
    classes: [cls, cls, cls, cls], owner: new OwnedBlocks(), hints: {}, outcome: "ok", finishReason: "stop",
    policyVersions: { retention: 0, autoscaling: 0, routing: 0, frontend: 0 }, arrivedAt: now, firstTokenAt: null, finishedAt: null,
    cachedTokens: 0, workerId: null, expectedPrefill: 0, blocks: [], reservedOut: 0, onFirstToken: null, onDone: () => {},
  };
}

const prompt = (tokens: number) => {
  const s = new TokenStream(64);
  s.append(contentId(1, 1), tokens, 0);
  return s;
};
const ttft = (r: SimRequest) => r.firstTokenAt! - r.arrivedAt;

describe("worker timing (calibrated to the seed's 52k-token prompt)", () => {
  it("takes about 912 ms to first token with nothing cached", () => {
    const { run } = setup();
    const r = run(prompt(52_000), new HashView(null));
    expect(r.cachedTokens).toBe(0);
    expect(ttft(r)).toBeGreaterThan(912 * 0.95);
    expect(ttft(r)).toBeLessThan(912 * 1.05);
  });

  it("takes about 168 ms with its prefix cached", () => {
    const { run } = setup();
    const stream = prompt(52_000);
    const view = new HashView(null);
    run(stream, view);
    const r = run(stream, view);
    expect(r.cachedTokens).toBe(Math.floor(52_000 / 64) * 64);
    expect(ttft(r)).toBeGreaterThan(168 * 0.95);
    expect(ttft(r)).toBeLessThan(168 * 1.05);
  });

  it("misses everything when only block 0 differs (a per-session header)", () => {
    const { run } = setup();
    const stream = prompt(52_000);
    run(stream, new HashView(contentId(9, 1)));
    const r = run(stream, new HashView(contentId(9, 2)));
    expect(r.cachedTokens).toBe(0);
    expect(ttft(r)).toBeGreaterThan(900);
  });

  it("decodes slower as the batch grows and counts prefix queries and hits", () => {
    const { run, worker } = setup();
    const r = run(prompt(1_000), new HashView(null), 200);
    const itl = (r.finishedAt! - r.firstTokenAt!) / 199;
    expect(itl).toBeCloseTo(DEFAULT_TIMING.itlBaseMs + DEFAULT_TIMING.itlPerRunningMs, 5);
    expect(worker.queryTokens).toBe(1_000);
    expect(worker.pool.active).toBe(0);
  });

  it("queues a prefill behind the one running: the second waits for the first", () => {
    const { worker, drain } = setup();
    const [ra, rb] = [1, 2].map((k) => {
      const stream = prompt(52_000);
      const view = new HashView(contentId(3, k));
      view.extend(stream);
      return request(stream, view, 10, 0);
    }) as [SimRequest, SimRequest];
    worker.enqueue(ra, ra.inputTokens);
    worker.enqueue(rb, rb.inputTokens);
    expect(worker.waiting).toBe(1);
    expect(worker.running).toBe(1);
    expect(worker.pendingPrefillTokens).toBe(104_000);
    drain();
    expect(ttft(rb)).toBeCloseTo(2 * ttft(ra), 5);
    expect(worker.pendingPrefillTokens).toBe(0);
  });
});
