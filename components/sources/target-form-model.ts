import {
  ADAPTER_KINDS,
  ADAPTERS,
  SECRET_MARKER,
  targetInput,
  type AdapterKind,
  type TargetInput,
} from "@/lib/policies/targets";
import type { PolicyKind } from "@/lib/policies/policies";
import { issuesToErrors, type FieldErrors } from "./source-form-model";

export type TargetFormValues = {
  id: string;
  name: string;
  /** The cluster whose policy versions it receives. */
  cluster: string;
  adapter: AdapterKind;
  enabled: boolean;
  kinds: PolicyKind[];
  fields: Record<string, string>;
};

/** Config fields per push adapter; secret ones come back masked and are kept when sent back unchanged. */
export const ADAPTER_FIELDS: Record<AdapterKind, { name: string; label: string; secret?: boolean; help?: string }[]> = {
  sim: [
    { name: "url", label: "Control API URL" },
    { name: "token", label: "Token", secret: true },
  ],
  "dynamo-busy-threshold": [
    { name: "url", label: "Frontend URL" },
    { name: "model", label: "Model" },
  ],
  "planner-file": [
    {
      name: "path",
      label: "Planner config file",
      help: 'a file name inside the target folder (SWITCHYARD_TARGET_DIR), e.g. team/planner.json; no absolute path, no ".."',
    },
  ],
};

export { ADAPTERS, ADAPTER_KINDS, SECRET_MARKER };

export function newTargetValues(adapter: AdapterKind = "sim"): TargetFormValues {
  return {
    id: "",
    name: "",
    cluster: "default",
    adapter,
    enabled: true,
    kinds: [...ADAPTER_KINDS[adapter]],
    fields: {},
  };
}

export function targetToValues(t: {
  id: string;
  name: string;
  cluster: string;
  adapter: string;
  enabled: boolean;
  kinds: PolicyKind[];
  config: Record<string, unknown>;
}): TargetFormValues {
  const adapter = (ADAPTERS as readonly string[]).includes(t.adapter) ? (t.adapter as AdapterKind) : "sim";
  const fields = Object.fromEntries(
    ADAPTER_FIELDS[adapter].map((f) => [f.name, t.config[f.name] === undefined ? "" : String(t.config[f.name])]),
  );
  return { id: t.id, name: t.name, cluster: t.cluster, adapter, enabled: t.enabled, kinds: t.kinds, fields };
}

/** Validate with the policies.targets.upsert schema; errors keyed "id", "name", "cluster", "kinds", "config.<field>". */
export function validateTarget(
  v: TargetFormValues,
): { ok: true; input: TargetInput } | { ok: false; errors: FieldErrors } {
  const config = Object.fromEntries(ADAPTER_FIELDS[v.adapter].map((f) => [f.name, (v.fields[f.name] ?? "").trim()]));
  const kinds = v.kinds.filter((k) => ADAPTER_KINDS[v.adapter].includes(k));
  const result = targetInput.safeParse({
    id: v.id.trim(),
    name: v.name.trim(),
    cluster: v.cluster.trim(),
    adapter: v.adapter,
    enabled: v.enabled,
    kinds,
    config,
  });
  if (result.success) return { ok: true, input: result.data };
  return {
    ok: false,
    errors: issuesToErrors(
      result.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    ),
  };
}

/** Server issues from policies.targets.upsert (paths start with "target."). */
export function targetServerErrors(issues: { path: string; message: string }[]): FieldErrors {
  return issuesToErrors(issues.map((i) => ({ ...i, path: i.path.replace(/^target\./, "") })));
}
