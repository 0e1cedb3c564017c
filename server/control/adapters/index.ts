import type { Adapters } from "../reconciler";
import { targetConfigs } from "../targets";
import { busyThresholdAdapter } from "./busy-threshold";
import { plannerFileAdapter } from "./planner-file";
import { simAdapter } from "./sim";

/** The production adapters, each built from a target's stored config (validated again here). */
export function defaultAdapters(): Adapters {
  return {
    sim: (t) => simAdapter(targetConfigs.sim.parse(t.config)),
    "dynamo-busy-threshold": (t) => busyThresholdAdapter(targetConfigs["dynamo-busy-threshold"].parse(t.config)),
    "planner-file": (t) => plannerFileAdapter(targetConfigs["planner-file"].parse(t.config)),
  };
}
