import { OwnedBlocks } from "../sim/block-pool";
import type { ReplayHost } from "../sim/trace-replay";
import { freshEngineState, type Api, type Harness, type SimRequest } from "../sim/types";
import { PairSet } from "./pair-set";
import type { RecordedPrompts } from "./recorded-prompts";
import type { RecordedTurn } from "./types";

// Plays recorded turns into a Simulation in trace mode (the same host interface as the sim's trace replay), with what a
// recording adds to a trace: trajectories and agent roles, block segments, and the lifecycle end of each agent. Each
// trajectory is closed-loop: a turn is sent as long after the previous one finished as it was in the recording (its
// tool wait), or, when the recording overlapped them, as long after the previous one was sent.

export type { HeaderMode } from "./recorded-prompts";

export interface LifecycleHost extends ReplayHost {
  /** Whether a trajectory's stored blocks must be recorded for lifecycle eviction (see Simulation.keepsOwnedRefs). */
  readonly keepsOwnedRefs: boolean;
  trajectoryEnded(traj: never): void;
  sessionEnded(session: never): void;
}

export type ReplayHooks = {
  /**
   * `known`: the prompt's first blocks a turn sent before held too (a shared opening copied from it). `lone`: per block
   * of the view, 1 when no other block of the window's prompts has its content (null: not known).
   */
  sent(turn: number, req: SimRequest, contents: readonly number[], known: number, lone: Uint8Array | null): void;
  done(turn: number, req: SimRequest): void;
};

export class RecordedReplay {
  finished = 0;
  sent = 0;
  private order = new Map<string, number[]>();
  private owners = new Map<string, OwnedBlocks>();
  private sessions = new Map<string, { trajectories: string[]; left: number }>();
  private continuing: Set<string>;
  private turns: readonly RecordedTurn[];
  /** The last sequence hash of each shared opening a turn of this run has sent (a later opening's blocks are known). */
  private openings = new PairSet(1 << 10);

  constructor(
    private host: LifecycleHost,
    private prompts: RecordedPrompts,
    continuing: readonly string[],
    private hooks: ReplayHooks,
    /** No turn is sent at or after this time (Unix ms). */
    private until: number,
  ) {
    this.continuing = new Set(continuing);
    const turns = (this.turns = prompts.turns);
    prompts.beginRun();
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
    const prompt = this.prompts.of(i);
    // A new view that starts with an opening a turn of this run sent before: its first blocks were seen (by that turn).
    const o = prompt.opened;
    const known = o > 0 && this.openings.addSeen(prompt.view.words[2 * o - 2]!, prompt.view.words[2 * o - 1]!) ? o : 0;
    let owner = this.owners.get(t.trajectoryId);
    if (!owner) this.owners.set(t.trajectoryId, (owner = new OwnedBlocks(this.host.keepsOwnedRefs)));
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
    this.hooks.sent(i, req, prompt.contents, known, prompt.lone);
    host.submit(req);
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
