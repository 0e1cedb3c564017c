import {
  POLICY_KINDS,
  validatePolicy,
  type AutoscalingPolicy,
  type FrontendPolicy,
  type PolicyDocuments,
  type PolicyError,
  type PolicyKind,
  type RetentionPolicy,
  type RoutingPolicy,
} from "../../lib/policies/policies";
import type { TelemetryEventInput } from "../ingest/events";
import type { AgentHost } from "./agent";
import type { Session, ToolCall, Trajectory, TurnPlan } from "./trajectory";
import type { RemovalReason, RetentionClass } from "./block-pool";
import { Cluster, ms, type CoreHost } from "./cluster";
import type { HarnessProfile } from "./harness";
import { EventQueue } from "./heap";
import { hashString, Rng } from "./prng";
import { RetentionClasses } from "./retention";
import type { Scenario } from "./scenarios";
import { buildPrefix, SEG_SYSTEM, SEG_TOOLS, type SharedPrefix } from "./stream";
import type { AgentRole, EventBody, PolicyVersions, SimRequest } from "./types";
import { Workload } from "./workload";
import { TraceReplay } from "./trace-replay";
import type { TraceEntry } from "./workload-trace";
import { contentId } from "./hashing";
import { reasoningEvents, requestEvent, toolEvent } from "./event-builders";
import { EventSink } from "./event-sink";
import { NO_TIERS, type TierConfig } from "./tiers";
import { ackedVersion, checkVersion, rejectionMessage, type PolicyAck, type PolicyState } from "./policy-versions";

// The deterministic discrete-event core: a seeded PRNG, a queue of timed callbacks and simulated
// time passed in by the caller (runUntil). No I/O: events go to a sink, policies come in as calls.

export type { PolicyAck, PolicyState } from "./policy-versions";

export type SimulationOptions = {
  scenario: Scenario;
  seed: number;
  /** Unix ms of simulated time zero. */
  startMs: number;
  /** Replay these trace requests instead of the scenario's generated sessions (tokens per hash id: blockSize). */
  trace?: { entries: readonly TraceEntry[]; blockSize: number };
  /** Lower KV tiers, instead of the scenario's (blocks; 0: no such tier). */
  tiers?: TierConfig;
  /**
   * The start configuration is the only one (a policy preview's replay): applyPolicy refuses, so a trajectory's stored
   * blocks need no record for lifecycle eviction unless the start configuration evicts on agent or session end.
   */
  fixedPolicies?: boolean;
};

/** The run's id prefix, derived from seed and start so that a rerun re-sends the same ids. */
export function runPrefix(seed: number, startMs: number): string {
  return hashString(`${seed}:${startMs}`).toString(36).padStart(7, "0");
}

export class Simulation implements AgentHost, CoreHost {
  now: number;
  readonly salt: number;
  readonly run: string;
  readonly cluster: Cluster;
  readonly workload: Workload;
  readonly replay: TraceReplay | null;
  readonly startMs: number;
  versions: PolicyVersions;
  private docs: PolicyDocuments;
  /** The cluster's policy line per kind (versions pushed without a model). */
  private states: Record<PolicyKind, PolicyState>;
  /**
   * This model's own policy line per kind (versions pushed with the model: lib/policy-scope.ts). Once a kind has one,
   * it is what this model's workers run, and the cluster's later versions of that kind are recorded but not used.
   */
  private modelStates: Partial<Record<PolicyKind, PolicyState>> = {};
  private retention!: RetentionClasses;
  /** A class that evicts on agent_end / session_end was ever handed out (else lifecycle triggers have nothing to do). */
  private lifecycleEver = false;
  private queue = new EventQueue();
  private events: EventSink;
  private ids = 0;
  private prefixes = new Map<string, SharedPrefix>();
  private started = false;
  /** The cluster's lower KV tiers (blocks; all 0: device only). */
  readonly tiers: TierConfig;

  constructor(readonly options: SimulationOptions) {
    const { scenario, seed, startMs } = options;
    this.now = startMs;
    this.startMs = startMs;
    this.run = runPrefix(seed, startMs);
    this.events = new EventSink(this.run);
    this.salt = hashString(`salt:${seed}`);
    const root = new Rng(seed);
    const initial = {} as PolicyDocuments;
    for (const kind of POLICY_KINDS) {
      const result = validatePolicy(kind, scenario.policies?.[kind] ?? {});
      if (!result.ok)
        throw new Error(
          `scenario ${scenario.name}: invalid ${kind} policy: ${result.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
        );
      (initial as Record<PolicyKind, unknown>)[kind] = result.document;
    }
    this.docs = initial;
    this.states = Object.fromEntries(
      POLICY_KINDS.map((k) => [k, { version: 0, document: initial[k], applied_at: startMs }]),
    ) as Record<PolicyKind, PolicyState>;
    this.versions = Object.freeze({ retention: 0, autoscaling: 0, routing: 0, frontend: 0 });
    this.setRetention(initial.retention);
    this.tiers = { ...(options.tiers ?? scenario.tiers ?? NO_TIERS) };
    this.cluster = new Cluster(
      this,
      {
        model: scenario.model,
        blockSize: scenario.blockSize,
        timing: scenario.timing,
        startupMs: scenario.startupSeconds * 1000,
        kvBlocks: scenario.kvBlocks,
        initial: scenario.workers,
        tiers: this.tiers,
        ...(scenario.tierBandwidth ? { tierBandwidth: scenario.tierBandwidth } : {}),
        ...(scenario.workerBase ? { workerBase: scenario.workerBase } : {}),
      },
      root.derive("router"),
    );
    this.workload = new Workload(this, scenario.kinds, root.derive("workload"));
    this.replay = options.trace
      ? new TraceReplay(this, options.trace.entries, options.trace.blockSize, scenario.blockSize)
      : null;
  }

  /**
   * Where emitted events go (in simulated-time order). With `kinds`, only events of those kinds (the others are not
   * built where building them costs anything: request events, kv.stored, and without kv.removed the pools keep no
   * removed hashes but counts, told to onRemovals); their ids are numbered among themselves.
   */
  setSink(sink: (event: TelemetryEventInput) => void, kinds?: readonly TelemetryEventInput["kind"][]): void {
    this.events.set(sink, kinds);
    for (const w of this.cluster.workers) w.pool.keepRemovedHashes(this.cluster.logsRemovals());
  }

  /**
   * Told, when a sink takes no kv.removed events, what each flush of a worker's removals would have said: the worker,
   * the time (Unix ms, as the events' ts) and how many blocks left for each reason, in the events' order.
   */
  onRemovals: ((workerId: string, ts: number, counts: readonly [RemovalReason, number][]) => void) | null = null;

  removalsCounted(workerId: string, counts: readonly [RemovalReason, number][]): void {
    this.onRemovals?.(workerId, ms(this.now), counts);
  }

  /** Whether the sink takes events of `kind`. */
  wants(kind: TelemetryEventInput["kind"]): boolean {
    return this.events.wants(kind);
  }

  /** Process every callback due at or before `t` (Unix ms), then stand at `t`. */
  runUntil(t: number): void {
    if (!this.started) this.begin();
    const q = this.queue;
    for (let next = q.peekTime(); next <= t; next = q.peekTime()) {
      this.now = next;
      q.shift()();
    }
    if (t > this.now) this.now = t;
  }

  private begin(): void {
    this.started = true;
    this.cluster.start();
    const replay = this.replay;
    this.every(1000, () => {
      this.cluster.statsTick();
      if (replay) return;
      const elapsed = (this.now - this.startMs) / 1000;
      this.workload.tick(this.options.scenario.sessions(elapsed), elapsed < 60);
    });
    const plan = () => {
      this.cluster.plannerTick();
      this.at(this.now + this.docs.autoscaling.adjustment_interval_seconds * 1000, plan);
    };
    this.at(this.startMs + this.docs.autoscaling.adjustment_interval_seconds * 1000, plan);
    if (replay) replay.start();
    else this.workload.tick(this.options.scenario.sessions(0), true);
  }

  private every(periodMs: number, run: () => void): void {
    const loop = () => {
      run();
      this.at(this.now + periodMs, loop);
    };
    this.at(this.startMs + periodMs, loop);
  }

  at(t: number, run: () => void): void {
    this.queue.push(t < this.now ? this.now : t, run);
  }

  emit(body: EventBody): void {
    this.events.emit(body);
  }

  nextId(prefix: string): string {
    return `${this.run}-${prefix}${++this.ids}`;
  }

  /** The model this simulation's workers serve. */
  get model(): string {
    return this.options.scenario.model;
  }

  /**
   * The policy state of every kind: the cluster's line, or (`model` given) the line this model's workers run, its own
   * where it has one.
   */
  policies(model: string | null = null): Record<PolicyKind, PolicyState> {
    return model === null ? { ...this.states } : { ...this.states, ...this.modelStates };
  }

  /** Replace a kind's start configuration (version 0) before the run begins. */
  configure(kind: PolicyKind, document: unknown): { ok: true } | { ok: false; errors: PolicyError[] } {
    if (this.started) throw new Error("configure() is for the start configuration");
    const result = validatePolicy(kind, document);
    if (!result.ok) return result;
    (this.docs as Record<PolicyKind, unknown>)[kind] = result.document;
    this.states[kind] = { version: 0, document: result.document, applied_at: this.startMs };
    if (kind === "retention") this.setRetention(this.docs.retention);
    return { ok: true };
  }

  /**
   * Validate and apply a policy version now; emits policy.ack either way. `refused`: errors found before the document.
   * `model`: a version of this model's own line (numbered apart from the cluster's), which then takes over the kind.
   */
  applyPolicy(
    kind: PolicyKind,
    version: number,
    document: unknown,
    refused: PolicyError[] = [],
    model: string | null = null,
  ): PolicyAck {
    if (this.options.fixedPolicies) throw new Error("this simulation's policies are fixed at its start");
    const line = model === null ? this.states : this.modelStates;
    const current = line[kind] ?? { version: 0, document: undefined, applied_at: this.startMs };
    const result = checkVersion(kind, version, document, refused, current);
    const ts = ms(this.now);
    if (!result.ok) {
      this.emit({
        kind: "policy.ack",
        ts,
        target: "sim",
        policy_kind: kind,
        version: ackedVersion(version),
        status: "rejected",
        message: rejectionMessage(result.errors),
        ...(model === null ? {} : { model }),
      });
      return { ok: false, kind, version, status: "rejected", errors: result.errors };
    }
    line[kind] = { version, document: result.document, applied_at: ts };
    // The model's own line, once it has one, is what runs; a cluster version then changes nothing here.
    if (model !== null || this.modelStates[kind] === undefined) {
      (this.docs as Record<PolicyKind, unknown>)[kind] = result.document;
      this.versions = Object.freeze({ ...this.versions, [kind]: version });
      if (kind === "retention") this.setRetention(this.docs.retention);
    }
    this.emit({
      kind: "policy.ack",
      ts,
      target: "sim",
      policy_kind: kind,
      version,
      status: "applied",
      ...(model === null ? {} : { model }),
    });
    return { ok: true, kind, version, status: "applied", applied_at: ts };
  }

  routing(): RoutingPolicy {
    return this.docs.routing;
  }

  autoscaling(): AutoscalingPolicy {
    return this.docs.autoscaling;
  }

  frontend(): FrontendPolicy {
    return this.docs.frontend;
  }

  /** Whether lifecycle eviction may ever need the blocks a trajectory stored (OwnedBlocks' refs). */
  get keepsOwnedRefs(): boolean {
    return this.options.fixedPolicies !== true || this.lifecycleEver;
  }

  private setRetention(policy: RetentionPolicy): void {
    this.retention = new RetentionClasses(policy);
    this.lifecycleEver ||= this.retention.lifecycle;
  }

  classes(sessionType: string, role: AgentRole): readonly RetentionClass[] {
    return this.retention.forAgent(sessionType, role);
  }

  prefix(profile: HarnessProfile, subagent: boolean): SharedPrefix {
    const key = `${profile.harness}:${profile.promptNamespace}:${subagent}:${profile.systemTokens}:${profile.toolTokens}`;
    let p = this.prefixes.get(key);
    if (!p) {
      const ns = profile.promptNamespace;
      const system: [number, number, number] = subagent
        ? [contentId(ns, 2), profile.subagentSystemTokens, SEG_SYSTEM]
        : [contentId(ns, 1), profile.systemTokens, SEG_SYSTEM];
      p = buildPrefix(this.options.scenario.blockSize, [system, [contentId(ns, 3), profile.toolTokens, SEG_TOOLS]]);
      this.prefixes.set(key, p);
    }
    return p;
  }

  submit(req: SimRequest): void {
    if (!this.wants("request")) req.itlRuns = null;
    this.cluster.route(req);
  }

  requestFinished(req: SimRequest): void {
    if (this.wants("request")) this.emit(requestEvent(req, this.options.scenario));
    req.onDone(req);
  }

  emitTurnEvents(_traj: Trajectory, req: SimRequest, plan: TurnPlan): void {
    for (const e of reasoningEvents(req, plan)) this.emit(e);
  }

  emitTool(traj: Trajectory, call: ToolCall): void {
    this.emit(toolEvent(traj, call));
    if (!call.subagent) this.cluster.prefetcher?.durations.record(call.spec.name, call.endedAt - call.startedAt);
  }

  toolsDispatched(traj: Trajectory, req: SimRequest, plan: TurnPlan): void {
    const prefetcher = this.cluster.prefetcher;
    const { enabled, lead_ms } = this.docs.frontend.prefetch;
    if (!prefetcher || !enabled) return;
    const turn = traj.turns;
    prefetcher.schedule(
      req,
      plan.tools,
      plan.overheadMs,
      lead_ms,
      () => traj.turns === turn && !traj.ended && this.docs.frontend.prefetch.enabled,
    );
  }

  trajectoryEnded(traj: Trajectory): void {
    this.cluster.prefetcher?.settle(traj.id, null);
    if (this.evictOwned(traj, "agent_end")) this.cluster.flushAll();
  }

  sessionEnded(session: Session): void {
    let any = false;
    for (const traj of session.trajectories) any = this.evictOwned(traj, "session_end") || any;
    if (any) this.cluster.flushAll();
    this.workload.ended();
  }

  private evictOwned(traj: Trajectory, trigger: "agent_end" | "session_end"): boolean {
    if (!this.lifecycleEver) return false;
    const { pools, starts, refs, length } = traj.stored;
    const tiers = this.cluster.tiers;
    let any =
      tiers !== null &&
      tiers.dropOnEnd(
        {
          seq: traj.view(this.docs.frontend.strip_anthropic_preamble).seq,
          n: traj.stream.contents.length,
          classes: this.classes(traj.session.kind.sessionType, traj.role),
          segments: traj.stream.segments,
        },
        trigger,
      ) > 0;
    for (let k = 0; k < pools.length; k++) {
      const pool = pools[k]!;
      if (pool.cached === 0) continue;
      const end = k + 1 < pools.length ? starts[k + 1]! : length;
      for (let i = starts[k]!; i < end; i++) any = pool.evictOnEnd(refs[i]!, trigger) || any;
    }
    return any;
  }
}
