import type { RetentionClass } from "./block-pool";
import { contentId } from "./hashing";
import { OwnedBlocks } from "./block-pool";
import { HashView, SEG_CONVERSATION, TokenStream } from "./stream";
import { freshEngineState, type AgentRole, type PolicyVersions, type SimRequest } from "./types";
import type { TraceEntry } from "./workload-trace";

// Plays a parsed request trace into the cluster instead of generated sessions. A request is sent at
// its timestamp; one that continues a session with a `delay` is sent that long after the session's
// previous request finished; one that waits for others (`wait_for`) is sent `tool_wait_ms` after the
// last of them finished (and not before its timestamp). Hash ids become prefix blocks: the same id
// is the same content after the same prefix, so its blocks hit wherever they are cached.

export interface ReplayHost {
  readonly now: number;
  readonly startMs: number;
  readonly versions: PolicyVersions;
  at(t: number, run: () => void): void;
  nextId(prefix: string): string;
  classes(sessionType: string, role: AgentRole): readonly RetentionClass[];
  submit(req: SimRequest): void;
}

const NS_TRACE = 0x7ace;
const NS_UNIQUE = 0x7acf;

export class TraceReplay {
  /** Requests sent and finished so far. */
  sent = 0;
  finished = 0;
  private dependents: number[][];
  private pending: Int32Array;
  private readyAt: Float64Array;
  private owners = new Map<string, OwnedBlocks>();

  constructor(
    private host: ReplayHost,
    private entries: readonly TraceEntry[],
    private traceBlockSize: number,
    private blockSize: number,
  ) {
    const n = entries.length;
    this.dependents = Array.from({ length: n }, () => []);
    this.pending = new Int32Array(n);
    this.readyAt = new Float64Array(n);
    const byId = new Map<string, number>();
    const lastOfSession = new Map<string, number>();
    entries.forEach((e, i) => {
      const deps = new Set<number>();
      for (const w of e.waitFor) deps.add(byId.get(w)!);
      const prev = e.sessionId !== null ? lastOfSession.get(e.sessionId) : undefined;
      if (prev !== undefined && e.delayMs !== null) deps.add(prev);
      for (const d of deps) this.dependents[d]!.push(i);
      this.pending[i] = deps.size;
      if (e.requestId !== null) byId.set(e.requestId, i);
      if (e.sessionId !== null) lastOfSession.set(e.sessionId, i);
    });
  }

  /** Schedule every request that depends on nothing, at its timestamp. */
  start(): void {
    this.entries.forEach((e, i) => {
      if (this.pending[i] === 0) this.host.at(this.host.startMs + e.timestamp, () => this.send(i));
    });
  }

  private send(i: number): void {
    const e = this.entries[i]!;
    const stream = new TokenStream(this.blockSize);
    let left = e.inputLength;
    for (const h of e.hashIds) {
      const take = Math.min(this.traceBlockSize, left);
      stream.append(contentId(NS_TRACE, h % 0x1_0000_0000, Math.floor(h / 0x1_0000_0000)), take, SEG_CONVERSATION);
      left -= take;
    }
    if (left > 0) stream.append(contentId(NS_UNIQUE, i), left, SEG_CONVERSATION);
    const view = new HashView(null);
    view.extend(stream);
    const session = e.sessionId ?? `${e.requestId ?? `line-${e.line}`}`;
    let owner = this.owners.get(session);
    if (!owner) this.owners.set(session, (owner = new OwnedBlocks()));
    const host = this.host;
    this.sent++;
    host.submit({
      id: host.nextId("req"),
      sessionId: `trace-${session}`,
      trajectoryId: `trace-${session}`,
      parentTrajectoryId: undefined,
      sessionType: "trace",
      harness: "trace",
      api: "chat_completions",
      view,
      segments: stream.segments,
      nBlocks: stream.contents.length,
      inputTokens: e.inputLength,
      outputTokens: Math.max(1, e.outputLength),
      reasoningTokens: 0,
      classes: host.classes("trace", "main"),
      owner,
      hints: { osl: e.outputLength },
      outcome: "ok",
      finishReason: "stop",
      policyVersions: host.versions,
      arrivedAt: host.now,
      ...freshEngineState(),
      onDone: () => this.done(i),
    });
  }

  private done(i: number): void {
    this.finished++;
    const now = this.host.now;
    for (const d of this.dependents[i]!) {
      const e = this.entries[d]!;
      const wait = e.waitFor.length ? e.toolWaitMs : (e.delayMs ?? 0);
      this.readyAt[d] = Math.max(this.readyAt[d]!, now + wait);
      if (--this.pending[d]! > 0) continue;
      const at = Math.max(
        this.readyAt[d]!,
        e.delayMs !== null && !e.waitFor.length ? 0 : this.host.startMs + e.timestamp,
      );
      this.host.at(at, () => this.send(d));
    }
  }
}
