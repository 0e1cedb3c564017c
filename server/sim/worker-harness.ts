import { OwnedBlocks, type RetentionClass } from "./block-pool";
import { PrefixIndex } from "./prefix-index";
import { EventQueue } from "./heap";
import { contentId } from "./hashing";
import { HashView, TokenStream } from "./stream";
import { DEFAULT_ENGINE_TIMING, type EngineTiming } from "./timing";
import { freshEngineState, type SimRequest, type WorkerRole } from "./types";
import { SimWorker, type PassRecord, type WorkerHost } from "./worker";

// Test helper: workers on a private clock, fed requests directly (no router, no workload).

const cls: RetentionClass = { name: "c", priority: 50, ttlMs: 0, pin: false, evictOn: 0 };

/** Workers on a private clock (a prefill → decode pair when `roles` says so); finished requests in `done`. */
export function setup(opts: { capacity?: number; timing?: Partial<EngineTiming>; roles?: WorkerRole[] } = {}) {
  const queue = new EventQueue();
  const done: SimRequest[] = [];
  const passes: PassRecord[] = [];
  const workers: SimWorker[] = [];
  const host = {
    now: 0,
    at: (t: number, run: () => void) => queue.push(t, run),
    stored: () => {},
    flushRemoved: () => {},
    handoff: (req: SimRequest) => workers[1]!.acceptDecode(req),
    finished: (req: SimRequest) => done.push(req),
    drained: () => {},
  } satisfies WorkerHost;
  const index = new PrefixIndex();
  let unique = 0;
  const timing = { ...DEFAULT_ENGINE_TIMING, ...opts.timing };
  (opts.roles ?? ["aggregated"]).forEach((role, i) => {
    const w = new SimWorker(`w${i + 1}`, role, i, opts.capacity ?? 20_000, index, 64, timing, host);
    w.state = "ready";
    w.onPass = (p) => passes.push(p);
    workers.push(w);
  });
  const worker = workers[0]!;
  const runUntil = (t = Infinity) => {
    while (queue.size > 0 && queue.peekTime() <= t) {
      const e = queue.pop()!;
      host.now = e.t;
      e.run();
    }
    if (t !== Infinity) host.now = t;
  };
  const submit = (
    id: string,
    tokens: number,
    output: number,
    view = new HashView(contentId(7, ++unique)),
    stream = prompt(tokens),
  ) => {
    view.extend(stream);
    const req = request(id, stream, view, output, host.now);
    worker.enqueue(req, req.inputTokens);
    return req;
  };
  return { worker, workers, host, done, passes, runUntil, submit };
}

function request(id: string, stream: TokenStream, view: HashView, output: number, now: number): SimRequest {
  return {
    id,
    sessionId: "s",
    trajectoryId: "t",
    parentTrajectoryId: undefined,
    sessionType: "x",
    harness: "claude_code",
    api: "messages",
    view,
    segments: stream.segments,
    nBlocks: stream.contents.length,
    inputTokens: stream.tokens,
    outputTokens: output,
    reasoningTokens: 0,
    classes: [cls, cls, cls, cls],
    owner: new OwnedBlocks(),
    hints: {},
    outcome: "ok",
    finishReason: "stop",
    policyVersions: { retention: 0, autoscaling: 0, routing: 0, frontend: 0 },
    arrivedAt: now,
    ...freshEngineState(),
    onDone: () => {},
  };
}

export function prompt(tokens: number): TokenStream {
  const s = new TokenStream(64);
  s.append(contentId(1, 1), tokens, 0);
  return s;
}
