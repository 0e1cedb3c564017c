import { OwnedBlocks } from "../sim/block-pool";
import { contentId } from "../sim/hashing";
import { hashString } from "../sim/prng";
import { HashView, SEG_CONVERSATION, SEG_SUBAGENT, SEG_TOOLS, TokenStream } from "../sim/stream";
import type { ReplayHost } from "../sim/trace-replay";
import { freshEngineState, type Api, type Harness, type SimRequest } from "../sim/types";
import type { PrefixShape } from "./prefix-shape";
import { MIN_SHARED_BLOCKS, SharedPrefixes } from "./shared-prefixes";
import type { RecordedTurn } from "./types";

// Plays recorded turns into a Simulation in trace mode (the same host interface as the sim's trace replay), with what a
// recording adds to a trace: trajectories and agent roles, block segments, and the lifecycle end of each agent. Each
// trajectory is closed-loop: a turn is sent as long after the previous one finished as it was in the recording (its
// tool wait), or, when the recording overlapped them, as long after the previous one was sent.

/** The first n (hi, lo) pairs of a and b are equal (one native compare of their bytes). */
function samePairs(a: Uint32Array, b: Uint32Array, n: number): boolean {
  if (n === 0) return true;
  const bytes = n * 8;
  return Buffer.from(a.buffer, a.byteOffset, bytes).equals(Buffer.from(b.buffer, b.byteOffset, bytes));
}

/** What the frontend does to block 0 of a Claude-Code-like prompt compared with the recording. */
export type HeaderMode = "as_recorded" | "strip" | "add";

export interface LifecycleHost extends ReplayHost {
  trajectoryEnded(traj: never): void;
  sessionEnded(session: never): void;
}

export type ReplayHooks = {
  /** `known`: the prompt's first blocks a turn sent before held too (a shared opening copied from it). */
  sent(turn: number, req: SimRequest, contents: readonly number[], known: number): void;
  done(turn: number, req: SimRequest): void;
};

const NS_RECORDED = 0x5ec0;
const NS_STRIPPED = 0x5ec1;
const NS_HEADER = 0x5ec2;
const NS_TAIL = 0x5ec3;
const NO_SHAPE: PrefixShape = { sharedBlocks: 0, headed: false, firstBlocks: 0, firstSegment: 0 };

export class RecordedReplay {
  finished = 0;
  sent = 0;
  private order = new Map<string, number[]>();
  private owners = new Map<string, OwnedBlocks>();
  private sessions = new Map<string, { trajectories: string[]; left: number }>();
  private continuing: Set<string>;
  /** Per trajectory: the prompt its turns have grown so far, and the recorded blocks it was grown from. */
  private grown = new Map<string, { stream: TokenStream; view: HashView; pairs: Uint32Array }>();
  private prefixes = new SharedPrefixes();

  constructor(
    private host: LifecycleHost,
    private turns: readonly RecordedTurn[],
    private shapes: ReadonlyMap<string, PrefixShape>,
    private blockSize: number,
    private header: HeaderMode,
    continuing: readonly string[],
    private hooks: ReplayHooks,
    /** No turn is sent at or after this time (Unix ms). */
    private until: number,
  ) {
    this.continuing = new Set(continuing);
    turns.forEach((t, i) => {
      let list = this.order.get(t.trajectoryId);
      if (!list) {
        this.order.set(t.trajectoryId, (list = []));
        const s = this.sessions.get(t.sessionId) ?? { trajectories: [], left: 0 };
        s.trajectories.push(t.trajectoryId);
        s.left++;
        this.sessions.set(t.sessionId, s);
      }
      list.push(i);
    });
  }

  /** Schedule the first turn of every trajectory at its recorded arrival. */
  start(): void {
    for (const list of this.order.values()) {
      const first = list[0]!;
      this.host.at(this.turns[first]!.arrivedAt, () => this.send(list, 0));
    }
  }

  /** Nothing in flight (every turn sent has finished). */
  get idle(): boolean {
    return this.sent === this.finished;
  }

  private send(list: number[], k: number): void {
    if (this.host.now >= this.until) return;
    const i = list[k]!;
    const t = this.turns[i]!;
    const next = list[k + 1];
    const overlaps = next !== undefined && (t.finishedAt === null || this.turns[next]!.arrivedAt < t.finishedAt);
    if (next !== undefined && overlaps)
      this.host.at(this.host.now + this.turns[next]!.arrivedAt - t.arrivedAt, () => this.send(list, k + 1));
    const prompt = this.promptOf(i);
    let owner = this.owners.get(t.trajectoryId);
    if (!owner) this.owners.set(t.trajectoryId, (owner = new OwnedBlocks()));
    const role = t.parentTrajectoryId ? "subagent" : "main";
    const host = this.host;
    const req: SimRequest = {
      id: host.nextId("req"),
      sessionId: t.sessionId,
      trajectoryId: t.trajectoryId,
      parentTrajectoryId: t.parentTrajectoryId ?? undefined,
      sessionType: t.sessionType,
      harness: (t.harness === "claude_code" || t.harness === "codex" ? t.harness : "trace") as Harness,
      api: "chat_completions" as Api,
      view: prompt.view,
      segments: prompt.segments,
      nBlocks: prompt.nBlocks,
      inputTokens: t.inputTokens,
      outputTokens: Math.max(1, t.outputTokens),
      reasoningTokens: t.reasoningTokens,
      classes: host.classes(t.sessionType, role),
      owner,
      hints: t.hints,
      outcome: t.status,
      finishReason: "stop",
      policyVersions: host.versions,
      arrivedAt: host.now,
      ...freshEngineState(),
      onDone: (r) => {
        this.finished++;
        this.hooks.done(i, r);
        if (next !== undefined && !overlaps)
          host.at(host.now + Math.max(0, this.turns[next]!.arrivedAt - t.finishedAt!), () => this.send(list, k + 1));
        if (next === undefined) this.ended(t);
      },
    };
    this.sent++;
    this.hooks.sent(i, req, prompt.contents, prompt.known);
    host.submit(req);
  }

  /**
   * The turn's prompt as abstract content (one part per recorded block, the rest of the prompt unique to the turn) and
   * the hash view it is a prefix of. A turn whose blocks extend its trajectory's previous turn grows that turn's view,
   * as the simulator's trajectories do; anything else starts a new one.
   */
  private promptOf(i: number): {
    view: HashView;
    segments: readonly number[];
    nBlocks: number;
    contents: readonly number[];
    known: number;
  } {
    const t = this.turns[i]!;
    const per = t.blockSize ?? this.blockSize;
    const b = t.blocks;
    const n = b ? b.length / 2 : 0;
    const full = Math.min(n, Math.floor(t.inputTokens / per));
    if (per === this.blockSize && t.inputTokens - full * per < per) {
      let g = this.grown.get(t.trajectoryId);
      const m = g ? g.stream.contents.length : 0;
      const same = g !== undefined && samePairs(g.pairs, b!, Math.min(m, full));
      let known = 0;
      if (!g || !same) {
        const opened = this.opening(t, full);
        known = opened.known;
        g = { stream: opened.stream, view: opened.view, pairs: b ?? new Uint32Array(0) };
        this.grown.set(t.trajectoryId, g);
      }
      if (full > g.stream.contents.length) {
        this.appendBlocks(g.stream, t, g.stream.contents.length, full);
        g.view.extend(g.stream);
        g.pairs = b!;
      }
      return { view: g.view, segments: g.stream.segments, nBlocks: full, contents: g.stream.contents, known };
    }
    const stream = new TokenStream(this.blockSize);
    const used = this.appendBlocks(stream, t, 0, n);
    const own = t.parentTrajectoryId ? SEG_SUBAGENT : SEG_CONVERSATION;
    if (t.inputTokens - used > 0) stream.append(contentId(NS_TAIL, i), t.inputTokens - used, own);
    const view = new HashView(null);
    view.extend(stream);
    return { view, segments: stream.segments, nBlocks: stream.contents.length, contents: stream.contents, known: 0 };
  }

  /**
   * A new stream and view for a trajectory: its shared opening (the shape's shared blocks, when the turn holds them)
   * copied from the first trajectory that sent the same blocks, else hashed here and kept for the next.
   */
  private opening(t: RecordedTurn, full: number): { stream: TokenStream; view: HashView; known: number } {
    const stream = new TokenStream(this.blockSize);
    const view = new HashView(null);
    const k = (this.shapes.get(t.trajectoryId) ?? NO_SHAPE).sharedBlocks;
    if (k < MIN_SHARED_BLOCKS || k > full || t.inputTokens < k * this.blockSize) return { stream, view, known: 0 };
    const parts: number[] = [];
    const segments: number[] = [];
    for (let j = 0; j < k; j++) {
      const [part, seg] = this.blockOf(t, j);
      parts.push(part);
      segments.push(seg);
    }
    const kept = this.prefixes.take(parts, segments);
    if (kept) return { ...kept, known: k };
    for (let j = 0; j < k; j++) stream.append(parts[j]!, this.blockSize, segments[j]!);
    view.extend(stream);
    this.prefixes.keep(parts, segments, stream, view);
    return { stream, view, known: 0 };
  }

  /** Content id and segment of recorded block k of a turn (block 0 as the frontend mode makes it). */
  private blockOf(t: RecordedTurn, k: number): [number, number] {
    const shape = this.shapes.get(t.trajectoryId) ?? NO_SHAPE;
    const b = t.blocks!;
    const n = b.length / 2;
    let part = contentId(NS_RECORDED, b[2 * k]!, b[2 * k + 1]!);
    if (k === 0 && this.header === "strip" && shape.headed && n > 1) part = contentId(NS_STRIPPED, b[2]!, b[3]!);
    else if (k === 0 && this.header === "add" && !shape.headed && t.harness === "claude_code")
      part = contentId(NS_HEADER, hashString(t.trajectoryId));
    const own = t.parentTrajectoryId ? SEG_SUBAGENT : SEG_CONVERSATION;
    const seg = k < shape.firstBlocks ? shape.firstSegment : k < shape.sharedBlocks ? SEG_TOOLS : own;
    return [part, seg];
  }

  /** Append recorded blocks [from, to) of a turn; returns the tokens they cover. */
  private appendBlocks(stream: TokenStream, t: RecordedTurn, from: number, to: number): number {
    const per = t.blockSize ?? this.blockSize;
    let used = from * per;
    for (let k = from; k < to && used < t.inputTokens; k++) {
      const [part, seg] = this.blockOf(t, k);
      const take = Math.min(per, t.inputTokens - used);
      stream.append(part, take, seg);
      used += take;
    }
    return used;
  }

  /** A trajectory's last turn finished: its agent ends (and its session, once all its agents have) unless it goes on. */
  private ended(t: RecordedTurn): void {
    if (this.continuing.has(t.trajectoryId)) return;
    this.host.trajectoryEnded({ stored: this.owners.get(t.trajectoryId)! } as never);
    const s = this.sessions.get(t.sessionId)!;
    if (--s.left > 0) return;
    this.host.sessionEnded({ trajectories: s.trajectories.map((id) => ({ stored: this.owners.get(id)! })) } as never);
  }
}
