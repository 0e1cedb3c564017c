// The kinds of policy document (docs/policies.md): what versions, targets and guards are stored per. Pure.

export const POLICY_KINDS = ["retention", "autoscaling", "routing", "frontend"] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];
