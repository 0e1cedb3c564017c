import type { PolicyError, PolicyKind } from "../../lib/policies/policies";
import { SimController, unservedModel, type PolicyTarget } from "./controller";
import type { PolicyAck, PolicyState } from "./engine";
import type { Driven } from "./runner";
import { scenarioByName, type Scenario } from "./scenarios";
import { FLEET_CLUSTERS, FLEET_SECOND_MODEL } from "./fleet-names";

// `--scenario fleet`: several clusters, and several models in one cluster, from one simulator process
// (docs/simulator.md, "A fleet"). Each member is a whole simulation (its own workers, router, prefix index and
// sessions) whose events carry its cluster; the members of one cluster share that cluster's control API and
// policies, the way one Dynamo deployment's frontend serves two models. They advance in lockstep.

/** One model group of a fleet: a scenario run as part of `cluster`. */
export type FleetMember = { cluster: string; scenario: Scenario };

const steady = scenarioByName("steady")!;
const [production, staging] = FLEET_CLUSTERS;

/**
 * The fleet scenario: production serves two models (different block and KV sizes; the second group's workers are
 * w101, …), staging one, smaller. About the steady scenario's load in all: 8 workers, ~95 live sessions.
 */
export const FLEET: readonly FleetMember[] = [
  {
    cluster: production,
    scenario: { ...steady, name: "fleet", workers: { aggregated: 4 }, sessions: () => 50 },
  },
  {
    cluster: production,
    scenario: {
      ...steady,
      name: "fleet",
      model: FLEET_SECOND_MODEL,
      blockSize: 32,
      kvBlocks: { aggregated: 16_000, prefill: 16_000, decode: 16_000 },
      workers: { aggregated: 2 },
      sessions: () => 25,
      workerBase: 100,
    },
  },
  {
    cluster: staging,
    scenario: {
      ...steady,
      name: "fleet",
      kvBlocks: { aggregated: 6_000, prefill: 6_000, decode: 6_000 },
      workers: { aggregated: 2 },
      sessions: () => 20,
    },
  },
];

/** The fleet's cluster names, in order of first appearance. */
export function fleetClusters(members: readonly FleetMember[] = FLEET): string[] {
  return [...new Set(members.map((m) => m.cluster))];
}

/** `line` (one JSON object) with `"cluster":name` as its first member; the name is a safe label (no escaping). */
export function stampCluster(line: string, cluster: string): string {
  return `{"cluster":"${cluster}",${line.slice(1)}`;
}

/**
 * One cluster's policy target over its members: a cluster version applies to each, a model's version to that model's
 * members only; the first refusal is the answer.
 */
export class ClusterTarget implements PolicyTarget {
  constructor(private readonly members: readonly SimController[]) {
    if (members.length === 0) throw new Error("a cluster needs at least one member");
  }

  policies(model: string | null = null): Record<PolicyKind, PolicyState> {
    const member = model === null ? undefined : this.members.find((m) => m.sim.model === model);
    return (member ?? this.members[0]!).policies(member ? model : null);
  }

  models(): string[] {
    return [...new Set(this.members.map((m) => m.sim.model))].sort();
  }

  async apply(
    kind: PolicyKind,
    version: number,
    document: unknown,
    refused?: PolicyError[],
    model: string | null = null,
  ): Promise<PolicyAck> {
    const to = model === null ? this.members : this.members.filter((m) => m.sim.model === model);
    if (to.length === 0) return unservedModel(kind, version, model!, this.models());
    const acks = await Promise.all(to.map((m) => m.apply(kind, version, document, refused, model)));
    return acks.find((a) => !a.ok) ?? acks[0]!;
  }
}

/** Drives every member's controller to the same simulated time. */
export class FleetController implements Driven {
  constructor(readonly members: readonly SimController[]) {
    if (members.length === 0) throw new Error("a fleet needs at least one member");
  }

  get now(): number {
    return Math.min(...this.members.map((m) => m.now));
  }

  advance(t: number): void {
    for (const m of this.members) m.advance(t);
  }

  drain(): void {
    for (const m of this.members) m.drain();
  }

  onPending(wake: (() => void) | null): void {
    for (const m of this.members) m.onPending(wake);
  }
}
