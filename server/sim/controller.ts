import type { PolicyError, PolicyKind } from "../../lib/policies/policies";
import type { PolicyAck, PolicyState, Simulation } from "./engine";
import type { Driven } from "./runner";

// The boundary between the asynchronous control API and the synchronous simulation: policy
// changes queue here and apply atomically at the next simulated instant the runner reaches.

export interface PolicyTarget {
  policies(): Record<PolicyKind, PolicyState>;
  /** Apply a document as a version; `refused` lists errors found before the document (rejects it). */
  apply(kind: PolicyKind, version: number, document: unknown, refused?: PolicyError[]): Promise<PolicyAck>;
}

type Pending = {
  kind: PolicyKind;
  version: number;
  document: unknown;
  refused: PolicyError[];
  resolve: (ack: PolicyAck) => void;
};

export class SimController implements PolicyTarget, Driven {
  private pending: Pending[] = [];
  private wake: (() => void) | null = null;

  constructor(readonly sim: Simulation) {}

  get now(): number {
    return this.sim.now;
  }

  policies(): Record<PolicyKind, PolicyState> {
    return this.sim.policies();
  }

  apply(kind: PolicyKind, version: number, document: unknown, refused: PolicyError[] = []): Promise<PolicyAck> {
    return new Promise((resolve) => {
      this.pending.push({ kind, version, document, refused, resolve });
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
    for (const p of this.pending.splice(0)) p.resolve(this.sim.applyPolicy(p.kind, p.version, p.document, p.refused));
  }

  /** Apply queued changes, then run the simulation up to `t`. */
  advance(t: number): void {
    this.drain();
    this.sim.runUntil(t);
  }
}
