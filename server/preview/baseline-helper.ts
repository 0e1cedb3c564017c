import type { MessagePort } from "node:worker_threads";
import type { PolicyDocuments } from "../../lib/policies/policies";
import type { ClusterShape } from "./cluster-shape";
import type { PrefixShape } from "./prefix-shape";
import type { HeaderMode } from "./recorded-replay";
import { keepBaseline } from "./baseline-cache";
import { replayOnce, type Replayed } from "./run";
import type { ReplayInput } from "./types";

// The baseline run of a preview in a second thread while the preview's own thread replays the candidate: the two runs
// are independent, so on two cores a first preview costs about one run's time instead of two. The window is read once,
// by the preview's thread, and posted to the helper (its chains are views of one SharedArrayBuffer: not copied);
// progress comes back through shared memory, since the preview's thread is busy with the candidate and reads no
// messages until it has finished. One message, one run: each helped preview gets a port of its own.

/** What the helper replays: everything replayOnce reads for the baseline, and the key it keeps the run under. */
export type BaselineJob = {
  key: string;
  input: ReplayInput;
  docs: PolicyDocuments;
  header: HeaderMode;
  shape: ClusterShape;
  shapes: ReadonlyMap<string, PrefixShape>;
};

type JobMessage = { job: BaselineJob; progress: Float64Array } | { none: true };
type Reply = { run: Replayed } | { error: string };

/** A baseline started in the helper: `progress` is readable while this thread is busy. */
export type RemoteBaseline = { done: Promise<Replayed>; progress: () => number };

/** The preview's side of a helper reached through `port`. */
export type BaselineHelper = {
  /** Start the baseline run in the helper thread. */
  start(job: BaselineJob): RemoteBaseline;
  /** The baseline is not needed (it was kept): the helper is free at once. */
  release(): void;
};

/** The preview thread's end of one helper port (used once: start or release). */
export function helperOn(port: MessagePort): BaselineHelper {
  let used = false;
  // A helper that is gone before start (its thread ended) must not leave the run waiting for its reply.
  let closed = false;
  port.once("close", () => (closed = true));
  const once = () => {
    if (used) throw new Error("a baseline helper port serves one run");
    used = true;
  };
  return {
    start(job) {
      once();
      const progress = new Float64Array(new SharedArrayBuffer(8));
      const done = new Promise<Replayed>((resolve, reject) => {
        port.once("message", (m: Reply) => {
          port.close();
          if ("run" in m) resolve(m.run);
          else reject(new Error(m.error));
        });
        if (closed) reject(new Error("the baseline helper went away"));
        else port.once("close", () => reject(new Error("the baseline helper went away")));
      });
      port.postMessage({ job, progress } satisfies JobMessage);
      return { done, progress: () => progress[0]! };
    },
    release() {
      once();
      port.postMessage({ none: true } satisfies JobMessage);
      port.close();
    },
  };
}

/**
 * The helper thread's end: answer the one job that comes on `port` (or its release), then call `finished` — the
 * thread is free for other work from then on, even while the preview's thread is still replaying its candidate.
 */
export function serveBaseline(port: MessagePort, finished: () => void): void {
  let over = false;
  const end = () => {
    if (over) return;
    over = true;
    port.removeAllListeners();
    finished();
  };
  port.once("close", end);
  port.once("message", (m: JobMessage) => {
    if ("job" in m) {
      let reply: Reply;
      try {
        const { input, docs, header, shape, shapes } = m.job;
        const progress = m.progress;
        const run = replayOnce(input, docs, header, shape, shapes, (s) => (progress[0] = s), undefined);
        // Kept here too: the next candidate on this window may be given this thread.
        keepBaseline(m.job.key, run);
        reply = { run };
      } catch (err) {
        reply = { error: err instanceof Error ? err.message : String(err) };
      }
      port.postMessage(reply);
    }
    // The preview's end closes the port once it has the reply.
    end();
  });
}
