import type { PolicyError, PolicyKind } from "../../lib/policies/policies";
import type { PolicyAck, PolicyState, Simulation } from "./engine";
import type { Driven } from "./runner";

// The boundary between the asynchronous control API and the synchronous simulation: policy
// changes queue here and apply atomically at the next simulated instant the runner reaches.

export interface PolicyTarget {
  /** The states of the cluster's line, or of what one model's workers run (`model`). */
  policies(model?: string | null): Record<PolicyKind, PolicyState>;
  /**
   * Apply a document as a version; `refused` lists errors found before the document (rejects it); `model`: a version
   * of that model's own line (lib/policy-scope.ts).
   */
  apply(
    kind: PolicyKind,
    version: number,
    document: unknown,
    refused?: PolicyError[],
    model?: string | null,
  ): Promise<PolicyAck>;
  /** The models whose workers it runs. */
  models(): string[];
}

type Pending = {
  kind: PolicyKind;
  version: number;
  document: unknown;
  refused: PolicyError[];
  model: string | null;
  resolve: (ack: PolicyAck) => void;
};

/** The refusal of a version for a model none of `served` is (nothing is applied). */
export function unservedModel(kind: PolicyKind, version: number, model: string, served: readonly string[]): PolicyAck {
  return {
    ok: false,
    kind,
    version,
    status: "rejected",
    errors: [{ path: "model", message: `${model} is not served here; the models are ${served.join(", ")}` }],
  };
}

export class SimController implements PolicyTarget, Driven {
  private pending: Pending[] = [];
  private wake: (() => void) | null = null;

  constructor(readonly sim: Simulation) {}

  get now(): number {
    return this.sim.now;
  }

  policies(model: string | null = null): Record<PolicyKind, PolicyState> {
    return this.sim.policies(model);
  }

  models(): string[] {
    return [this.sim.model];
  }

  apply(
    kind: PolicyKind,
    version: number,
    document: unknown,
    refused: PolicyError[] = [],
    model: string | null = null,
  ): Promise<PolicyAck> {
    if (model !== null && model !== this.sim.model)
      return Promise.resolve(unservedModel(kind, version, model, this.models()));
    return new Promise((resolve) => {
      this.pending.push({ kind, version, document, refused, model, resolve });
      this.wake?.();
    });
  }

  /** True when a policy change waits to be applied. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Resolve when a change is queued (for a paced runner waiting on the clock). */
  onPending(wake: (() => void) | null): void {
    this.wake = wake;
  }

  /** Apply queued changes, in arrival order, at the current simulated instant. */
  drain(): void {
    for (const p of this.pending.splice(0))
      p.resolve(this.sim.applyPolicy(p.kind, p.version, p.document, p.refused, p.model));
  }

  /** Apply queued changes, then run the simulation up to `t`. */
  advance(t: number): void {
    this.drain();
    this.sim.runUntil(t);
  }
}
