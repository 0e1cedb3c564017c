import { z } from "zod";
import { CLUSTER_NAME, CLUSTER_NAME_RULE } from "../cluster-name";
import { policyErrors, type PolicyError } from "../policies/policies";

// Alert rules as a document (edited, versioned and reviewed like a policy): each rule a condition over a figure
// Switchyard already computes, a scope, how long the condition must hold (`for_seconds`), a severity and a summary
// template. Every rule ships disabled. Pure and free of Node-only imports: forms and the server share it.

/** What a rule can watch, the scope fields each takes, and how its threshold reads. */
export const ALERT_METRICS = {
  /** Token-weighted prefix hit rate of the rule's window, 0–1 (per cluster and model). */
  hit_rate: { scopes: ["cluster", "model", "worker"], threshold: "below", unit: "ratio" },
  /** TTFT p95 in ms (per cluster and model). */
  ttft_p95_ms: { scopes: ["cluster", "model"], threshold: "above", unit: "ms" },
  /** Active over total KV blocks, 0–1 (per worker). */
  kv_utilization: { scopes: ["cluster", "worker"], threshold: "above", unit: "ratio" },
  /** Requests preempted per minute (per worker). */
  preemptions_per_minute: { scopes: ["cluster", "worker"], threshold: "above", unit: "count" },
  /** How far miss attribution is behind ingest, in minutes. */
  attribution_lag_minutes: { scopes: [], threshold: "above", unit: "minutes" },
  /** A telemetry source whose status is not ok (per source). */
  source_not_ok: { scopes: [], threshold: null, unit: null },
  /** A policy target not in sync with its scope's published versions (per target). */
  target_not_in_sync: { scopes: ["cluster"], threshold: null, unit: null },
  /** A guard rolled a version back. */
  guard_rollback: { scopes: ["cluster"], threshold: null, unit: null },
  /** A finding (unstable prompt prefix, KV held through tool waits) appearing. */
  finding: { scopes: ["cluster", "model"], threshold: null, unit: null },
} as const;
export type AlertMetric = keyof typeof ALERT_METRICS;
export const ALERT_METRIC_NAMES = Object.keys(ALERT_METRICS) as AlertMetric[];

export const SEVERITIES = ["critical", "warning", "info"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Variables a summary may use; each rule fills those that apply (others render as "—"). */
export const TEMPLATE_VARIABLES = [
  "rule",
  "value",
  "threshold",
  "cluster",
  "model",
  "worker",
  "source",
  "target",
] as const;

export const MAX_RULES = 64;
export const MAX_FOR_SECONDS = 24 * 3600;
const MAX_SUMMARY = 300;

const RULE_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const template = /\{\{\s*([^}]*?)\s*\}\}/g;

const scope = z
  .strictObject({
    cluster: z.string().regex(CLUSTER_NAME, CLUSTER_NAME_RULE).nullable().default(null),
    model: z.string().min(1).max(200).nullable().default(null),
    worker: z.string().min(1).max(200).nullable().default(null),
  })
  .default({ cluster: null, model: null, worker: null });

const rule = z
  .strictObject({
    name: z.string().regex(RULE_NAME, "must be 1 to 63 lower-case letters, digits or '_', starting with a letter"),
    enabled: z.boolean().default(false),
    metric: z.enum(ALERT_METRIC_NAMES, { error: `must be one of ${ALERT_METRIC_NAMES.join(", ")}` }),
    /** The threshold of a figure metric (below it for hit_rate, above it for the others); null for event metrics. */
    threshold: z.number().min(0, "must be 0 or more").max(1e9).nullable().default(null),
    scope,
    /** The figure is taken over this many seconds before each evaluation. */
    window_seconds: z
      .number()
      .int("must be a whole number of seconds")
      .min(60, "must be at least 60")
      .max(3600, "must be at most 3600")
      .default(300),
    for_seconds: z
      .number()
      .int("must be a whole number of seconds")
      .min(0, "must be 0 or more")
      .max(MAX_FOR_SECONDS, "must be at most a day (86400)")
      .default(60),
    severity: z.enum(SEVERITIES, { error: `must be one of ${SEVERITIES.join(", ")}` }).default("warning"),
    summary: z.string().min(1, "must not be empty").max(MAX_SUMMARY, `must be at most ${MAX_SUMMARY} characters`),
  })
  .superRefine((r, ctx) => {
    const m = ALERT_METRICS[r.metric];
    if (m.threshold !== null && r.threshold === null)
      ctx.addIssue({
        code: "custom",
        path: ["threshold"],
        message: `${r.metric} needs a threshold (${m.threshold} it the rule trips)`,
      });
    if (m.threshold === null && r.threshold !== null)
      ctx.addIssue({ code: "custom", path: ["threshold"], message: `${r.metric} takes no threshold (null)` });
    if (m.unit === "ratio" && r.threshold !== null && r.threshold > 1)
      ctx.addIssue({ code: "custom", path: ["threshold"], message: "is a ratio: 0 to 1 (0.3 for 30 %)" });
    for (const field of ["cluster", "model", "worker"] as const)
      if (r.scope[field] !== null && !(m.scopes as readonly string[]).includes(field))
        ctx.addIssue({
          code: "custom",
          path: ["scope", field],
          message: `${r.metric} is not scoped by ${field}${m.scopes.length ? ` (it takes ${m.scopes.join(", ")})` : ""}`,
        });
    for (const match of r.summary.matchAll(template)) {
      const name = match[1]!;
      if (!(TEMPLATE_VARIABLES as readonly string[]).includes(name))
        ctx.addIssue({
          code: "custom",
          path: ["summary"],
          message: `{{${name.slice(0, 40)}}} is not a variable (known: ${TEMPLATE_VARIABLES.join(", ")})`,
        });
    }
  });

export const alertRulesSchema = z
  .strictObject({ rules: z.array(rule).max(MAX_RULES, `at most ${MAX_RULES} rules`).default([]) })
  .superRefine((d, ctx) => {
    const seen = new Set<string>();
    d.rules.forEach((r, i) => {
      if (seen.has(r.name))
        ctx.addIssue({ code: "custom", path: ["rules", i, "name"], message: `${r.name} is used by an earlier rule` });
      seen.add(r.name);
    });
  });

export type AlertRule = z.output<typeof rule>;
export type AlertRules = z.output<typeof alertRulesSchema>;

export type AlertRulesValidation = { ok: true; document: AlertRules } | { ok: false; errors: PolicyError[] };

/** Check an alert-rules document: field errors at their paths (rules.2.threshold), defaults filled in. */
export function validateAlertRules(value: unknown): AlertRulesValidation {
  const r = alertRulesSchema.safeParse(value);
  return r.success ? { ok: true, document: r.data } : { ok: false, errors: policyErrors(r.error.issues) };
}

/** What exists to be scoped to: a rule naming anything else is refused at review (a typo would never fire). */
export type KnownScopes = { clusters: readonly string[]; models: readonly string[]; workers: readonly string[] };

/** Scope fields naming a cluster, model or worker the store has never seen, each at its path. */
export function unknownScopes(doc: AlertRules, known: KnownScopes): PolicyError[] {
  const out: PolicyError[] = [];
  const lists = { cluster: known.clusters, model: known.models, worker: known.workers };
  doc.rules.forEach((r, i) => {
    for (const field of ["cluster", "model", "worker"] as const) {
      const v = r.scope[field];
      if (v !== null && !lists[field].includes(v))
        out.push({
          path: `rules.${i}.scope.${field}`,
          message: `no ${field} ${JSON.stringify(v)} has reported to Switchyard`,
        });
    }
  });
  return out;
}

/** A summary with its variables filled in ("—" for those the alert has none of). */
export function renderSummary(
  summary: string,
  vars: Partial<Record<(typeof TEMPLATE_VARIABLES)[number], string>>,
): string {
  return summary.replace(template, (_, name: string) => vars[name as keyof typeof vars] ?? "—");
}

const off = (r: Omit<AlertRule, "enabled" | "scope" | "window_seconds"> & Partial<AlertRule>): AlertRule => ({
  enabled: false,
  scope: { cluster: null, model: null, worker: null },
  window_seconds: 300,
  ...r,
});

/** The rules Switchyard ships, every one off until an operator enables it. */
export const DEFAULT_ALERT_RULES: AlertRules = {
  rules: [
    off({
      name: "low_hit_rate",
      metric: "hit_rate",
      threshold: 0.3,
      for_seconds: 600,
      severity: "warning",
      summary: "Prefix hit rate of {{cluster}} {{model}} is {{value}} (below {{threshold}})",
    }),
    off({
      name: "slow_first_token",
      metric: "ttft_p95_ms",
      threshold: 5000,
      for_seconds: 300,
      severity: "warning",
      summary: "TTFT p95 of {{cluster}} {{model}} is {{value}} ms (above {{threshold}} ms)",
    }),
    off({
      name: "kv_full",
      metric: "kv_utilization",
      threshold: 0.95,
      for_seconds: 300,
      severity: "warning",
      summary: "KV of {{worker}} is {{value}} full",
    }),
    off({
      name: "preemptions",
      metric: "preemptions_per_minute",
      threshold: 5,
      window_seconds: 60,
      for_seconds: 60,
      severity: "critical",
      summary: "{{worker}} preempts {{value}} requests a minute (above {{threshold}})",
    }),
    off({
      name: "attribution_behind",
      metric: "attribution_lag_minutes",
      threshold: 10,
      for_seconds: 300,
      severity: "warning",
      summary: "Miss attribution is {{value}} minutes behind ingest",
    }),
    off({
      name: "source_down",
      metric: "source_not_ok",
      threshold: null,
      for_seconds: 120,
      severity: "warning",
      summary: "Source {{source}} is not ok",
    }),
    off({
      name: "target_out_of_sync",
      metric: "target_not_in_sync",
      threshold: null,
      for_seconds: 300,
      severity: "warning",
      summary: "Policy target {{target}} of {{cluster}} is not in sync",
    }),
    off({
      name: "guard_rolled_back",
      metric: "guard_rollback",
      threshold: null,
      for_seconds: 0,
      severity: "critical",
      summary: "A guard rolled a policy of {{cluster}} back",
    }),
    off({
      name: "new_finding",
      metric: "finding",
      threshold: null,
      for_seconds: 0,
      severity: "info",
      summary: "A finding appeared on {{cluster}} {{model}}",
    }),
  ],
};
