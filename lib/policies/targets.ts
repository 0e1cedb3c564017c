import { z } from "zod";
import { POLICY_KINDS } from "./policies";
import { DEFAULT_CLUSTER } from "../cluster-name";
import { policyScopeName } from "../policy-scope";
import { outboundUrl } from "../outbound-url";
import { redactSecrets, SECRET_MARKER, TARGET_SECRET_FIELDS } from "../secret-fields";

export { SECRET_MARKER };

// Push targets of the reconciler: which adapter, where it lives, which policy kinds it takes.

export const ADAPTERS = ["sim", "dynamo-busy-threshold", "planner-file"] as const;
export type AdapterKind = (typeof ADAPTERS)[number];

const url = outboundUrl;

/** Per adapter: its config and the kinds it may take. */
export const targetConfigs = {
  sim: z.strictObject({ url, token: z.string().min(1, "is required").max(512) }),
  "dynamo-busy-threshold": z.strictObject({ url, model: z.string().min(1, "is required").max(256) }),
  "planner-file": z.strictObject({ path: z.string().min(1, "is required").max(1024) }),
} as const;

export const ADAPTER_KINDS: Record<AdapterKind, readonly (typeof POLICY_KINDS)[number][]> = {
  sim: POLICY_KINDS,
  "dynamo-busy-threshold": ["routing"],
  "planner-file": ["autoscaling"],
};

const common = {
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "use 1-64 lowercase letters, digits, '-' or '_'"),
  name: z.string().min(1, "is required").max(128),
  /**
   * The policy scope whose versions it receives: a cluster, or `cluster@model` for a target that serves one model of
   * it (lib/policy-scope.ts). A target receives exactly its scope's versions.
   */
  cluster: policyScopeName.default(DEFAULT_CLUSTER),
  kinds: z.array(z.enum(POLICY_KINDS)).min(1, "pick at least one policy kind").max(POLICY_KINDS.length),
  enabled: z.boolean().default(true),
};

/** A target as an operator edits it; kinds must be ones its adapter can take. */
export const targetInput = z
  .discriminatedUnion("adapter", [
    z.strictObject({ ...common, adapter: z.literal("sim"), config: targetConfigs.sim }),
    z.strictObject({
      ...common,
      adapter: z.literal("dynamo-busy-threshold"),
      config: targetConfigs["dynamo-busy-threshold"],
    }),
    z.strictObject({ ...common, adapter: z.literal("planner-file"), config: targetConfigs["planner-file"] }),
  ])
  .superRefine((t, ctx) => {
    t.kinds.forEach((kind, i) => {
      if (!ADAPTER_KINDS[t.adapter].includes(kind))
        ctx.addIssue({ code: "custom", path: ["kinds", i], message: `${t.adapter} does not take ${kind} policies` });
    });
  });
export type TargetInput = z.output<typeof targetInput>;

/** A target's config for display: secrets replaced by a marker. */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  return redactSecrets(config, TARGET_SECRET_FIELDS);
}
