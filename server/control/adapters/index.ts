import { TARGET_SECRET_FIELDS } from "../../../lib/secret-fields";
import { openSecrets } from "../../auth/stored-secrets";
import { targetFolder } from "../../files/folders";
import type { Adapters } from "../reconciler";
import { targetConfigs } from "../../../lib/policies/targets";
import { busyThresholdAdapter } from "./busy-threshold";
import { plannerFileAdapter } from "./planner-file";
import { simAdapter } from "./sim";
import { scopeParts } from "../../../lib/policy-scope";

/**
 * The production adapters, each built from a target's stored config (validated again here; secrets opened here); file
 * targets write inside SWITCHYARD_TARGET_DIR.
 */
export function defaultAdapters(): Adapters {
  return {
    sim: (t) =>
      simAdapter(targetConfigs.sim.parse(openSecrets(t.config, TARGET_SECRET_FIELDS)), scopeParts(t.cluster).model),
    "dynamo-busy-threshold": (t) => busyThresholdAdapter(targetConfigs["dynamo-busy-threshold"].parse(t.config)),
    "planner-file": (t) => plannerFileAdapter(targetConfigs["planner-file"].parse(t.config), targetFolder()),
  };
}
