import type { PolicyKind } from "../../lib/policies/policies";
import type { EventOf, TelemetryEventInput } from "../ingest/events";
import { Simulation } from "./engine";
import { scenarioByName } from "./scenarios";

// Helpers shared by the simulator's tests: run a scenario in memory and summarise its events.

export const T0 = 1_764_400_000_000;

export type RunSpec = {
  scenario: string;
  seconds: number;
  seed?: number;
  policies?: Partial<Record<PolicyKind, unknown>>;
};

/** A simulation of a named scenario with start policies, not yet run. */
export function makeSim(spec: Omit<RunSpec, "seconds">): { sim: Simulation; events: TelemetryEventInput[] } {
  const sim = new Simulation({ scenario: scenarioByName(spec.scenario)!, seed: spec.seed ?? 1, startMs: T0 });
  for (const [kind, doc] of Object.entries(spec.policies ?? {})) {
    const result = sim.configure(kind as PolicyKind, doc);
    if (!result.ok) throw new Error(`bad ${kind} policy in test: ${JSON.stringify(result.errors)}`);
  }
  const events: TelemetryEventInput[] = [];
  sim.setSink((e) => events.push(e));
  return { sim, events };
}

/** Run a scenario for `seconds` simulated seconds and return its events. */
export function runScenario(spec: RunSpec): TelemetryEventInput[] {
  const { sim, events } = makeSim(spec);
  sim.runUntil(T0 + spec.seconds * 1000);
  return events;
}

export function ofKind<K extends TelemetryEventInput["kind"]>(
  events: readonly TelemetryEventInput[],
  kind: K,
): EventOf<K>[] {
  return events.filter((e) => e.kind === kind) as EventOf<K>[];
}

/** Cached share of prompt tokens of the requests that arrived in [fromMs, toMs). */
export function cachedShare(events: readonly TelemetryEventInput[], fromMs: number, toMs = Infinity): number {
  let input = 0;
  let cached = 0;
  for (const r of ofKind(events, "request")) {
    if (r.arrived_at < fromMs || r.arrived_at >= toMs) continue;
    input += r.input_tokens;
    cached += r.cached_tokens;
  }
  return input ? cached / input : 0;
}
