import { z } from "zod";
import { POLICY_KINDS, type PolicyKind } from "../policy-kinds";

// Policy documents (docs/policies.md) as zod schemas. Omitted fields take the documented defaults, unknown
// fields are refused at every level, and cross-field rules report the field at fault. Free of
// Node-only imports: the same schemas serve forms, the dashboard API and the simulated cluster.

export { POLICY_KINDS, type PolicyKind } from "../policy-kinds";

export const SEGMENTS = ["system_prompt", "tool_definitions", "conversation", "subagent_state", "any"] as const;
export const AGENT_ROLES = ["main", "subagent"] as const;
export const EVICT_ON = ["agent_end", "session_end", "never"] as const;

const MAX_TTL_SECONDS = 30 * 24 * 3600;
const priority = z
  .number()
  .int("must be an integer")
  .min(0, "must be between 0 and 100")
  .max(100, "must be between 0 and 100");
const ttlSeconds = z
  .number()
  .int("must be a whole number of seconds")
  .positive("must be positive when set (use null for no TTL)")
  .max(MAX_TTL_SECONDS, "must be at most 30 days")
  .nullable();
const evictOn = z.enum(EVICT_ON);

/** Tiers a retention rule can offload to (docs/telemetry-format.md, the storage_tier field; device is where blocks start). */
export const OFFLOAD_TIERS = ["host", "disk", "shared"] as const;
export type OffloadTier = (typeof OFFLOAD_TIERS)[number];
const MAX_OFFLOAD_TTL_SECONDS = 7 * 24 * 3600;
/** Where a rule's blocks go when evicted from device, and how long they stay there (null: until that tier needs room). */
const offload = z
  .strictObject({
    to: z
      .enum(OFFLOAD_TIERS, { error: `must be one of ${OFFLOAD_TIERS.join(", ")} or null` })
      .nullable()
      .default(null),
    ttl_seconds: z
      .number()
      .int("must be a whole number of seconds")
      .positive("must be positive when set (use null for no TTL)")
      .max(MAX_OFFLOAD_TTL_SECONDS, "must be at most 7 days")
      .nullable()
      .default(null),
  })
  .superRefine((o, ctx) => {
    if (o.to === null && o.ttl_seconds !== null)
      ctx.addIssue({
        code: "custom",
        path: ["ttl_seconds"],
        message: "must be null when blocks are dropped (to: null)",
      });
  });

const retentionMatch = z.strictObject({
  segment: z.enum(SEGMENTS).default("any"),
  session_type: z.string().min(1).max(64).nullable().default(null),
  agent_role: z.enum(AGENT_ROLES).nullable().default(null),
});

const retentionRule = z.strictObject({
  name: z
    .string()
    .min(1, "is required")
    .max(64, "must be at most 64 characters")
    .regex(/^([A-Za-z0-9][A-Za-z0-9_.-]*)?$/, "use letters, digits, '-', '_' or '.'"),
  match: retentionMatch.prefault({}),
  priority: priority.default(50),
  ttl_seconds: ttlSeconds.default(null),
  pin: z.boolean().default(false),
  evict_on: evictOn.default("never"),
  offload: offload.prefault({}),
  prefetch_on_resume: z.boolean().default(false),
});

const DEFAULT_RULES = [
  {
    name: "keep-system-prompt",
    match: { segment: "system_prompt", session_type: null, agent_role: null },
    priority: 90,
    ttl_seconds: 3600,
    pin: false,
    evict_on: "never",
    offload: { to: null, ttl_seconds: null },
    prefetch_on_resume: false,
  },
] as const;

export const retentionPolicy = z
  .strictObject({
    rules: z
      .array(retentionRule)
      .max(64, "at most 64 rules")
      .default(() => DEFAULT_RULES.map((r) => ({ ...r, match: { ...r.match }, offload: { ...r.offload } }))),
    default: z
      .strictObject({
        priority: priority.default(50),
        ttl_seconds: ttlSeconds.default(null),
        evict_on: evictOn.default("never"),
      })
      .prefault({}),
  })
  .superRefine((doc, ctx) => {
    const seen = new Map<string, number>();
    doc.rules.forEach((rule, i) => {
      const first = seen.get(rule.name);
      if (first !== undefined)
        ctx.addIssue({ code: "custom", path: ["rules", i, "name"], message: `duplicates the name of rule ${first}` });
      else seen.set(rule.name, i);
    });
  });

const replicas = z.number().int("must be an integer").min(0, "must be at least 0").max(1024, "must be at most 1024");
const fraction = z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");
const queueThreshold = z.number().min(0, "must be at least 0").max(1000, "must be at most 1000");

const prefillScaling = z.strictObject({
  min_replicas: replicas.default(1),
  max_replicas: replicas.default(8),
  queue_scale_up: queueThreshold.default(0.5),
  queue_scale_down: queueThreshold.default(0.2),
});
const kvScaling = (maxReplicas: number) =>
  z.strictObject({
    min_replicas: replicas.default(1),
    max_replicas: replicas.default(maxReplicas),
    kv_scale_up: fraction.default(0.9),
    kv_scale_down: fraction.default(0.5),
  });

export const autoscalingPolicy = z
  .strictObject({
    adjustment_interval_seconds: z
      .number()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(3600, "must be at most 3600")
      .default(30),
    grace_period_seconds: z
      .number()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(3600, "must be at most 3600")
      .default(60),
    max_gpu_budget: z
      .number()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(4096, "must be at most 4096")
      .default(16),
    prefill: prefillScaling.prefault({}),
    decode: kvScaling(8).prefault({}),
    aggregated: kvScaling(16).prefault({}),
    sla: z
      .strictObject({
        ttft_ms: z.number().positive("must be positive").max(600_000, "must be at most 600000").default(500),
        itl_ms: z.number().positive("must be positive").max(60_000, "must be at most 60000").default(50),
      })
      .prefault({}),
  })
  .superRefine((doc, ctx) => {
    const down = (role: "prefill" | "decode" | "aggregated", up: number, value: number, key: string) => {
      if (value >= up)
        ctx.addIssue({ code: "custom", path: [role, key], message: `must be below the scale-up threshold (${up})` });
    };
    down("prefill", doc.prefill.queue_scale_up, doc.prefill.queue_scale_down, "queue_scale_down");
    down("decode", doc.decode.kv_scale_up, doc.decode.kv_scale_down, "kv_scale_down");
    down("aggregated", doc.aggregated.kv_scale_up, doc.aggregated.kv_scale_down, "kv_scale_down");
    for (const role of ["prefill", "decode", "aggregated"] as const) {
      const { min_replicas: min, max_replicas: max } = doc[role];
      if (min > max)
        ctx.addIssue({
          code: "custom",
          path: [role, "min_replicas"],
          message: `must not exceed max_replicas (${max})`,
        });
      if (max > doc.max_gpu_budget) {
        ctx.addIssue({
          code: "custom",
          path: [role, "max_replicas"],
          message: `must not exceed max_gpu_budget (${doc.max_gpu_budget})`,
        });
      }
    }
    const mins = doc.prefill.min_replicas + doc.decode.min_replicas + doc.aggregated.min_replicas;
    if (mins > doc.max_gpu_budget) {
      ctx.addIssue({
        code: "custom",
        path: ["max_gpu_budget"],
        message: `must cover the sum of min_replicas (${mins})`,
      });
    }
  });

export const routingPolicy = z.strictObject({
  overlap_credit: z.number().min(0, "must be at least 0").max(100, "must be at most 100").default(1),
  prefill_load_scale: z.number().min(0, "must be at least 0").max(100, "must be at most 100").default(1),
  temperature: z.number().min(0, "must be at least 0").max(100, "must be at most 100").default(0),
  busy: z
    .strictObject({
      active_decode_blocks_threshold: fraction.nullable().default(null),
      active_prefill_tokens_threshold: z
        .number()
        .int("must be an integer")
        .min(0, "must be at least 0")
        .max(1e9)
        .nullable()
        .default(null),
      active_prefill_tokens_threshold_frac: z
        .number()
        .positive("must be positive")
        .max(1000, "must be at most 1000")
        .nullable()
        .default(null),
    })
    .prefault({}),
});

export const frontendPolicy = z.strictObject({
  strip_anthropic_preamble: z.boolean().default(false),
  tool_output_budget: z
    .strictObject({
      unit: z.enum(["bytes", "tokens"]).default("tokens"),
      limit: z
        .number()
        .int("must be an integer")
        .min(1, "must be at least 1")
        .max(1e9, "must be at most 1000000000")
        .default(10_000),
    })
    .prefault({}),
  /** Bring a waiting agent's blocks back to device lead_ms before its tool call is predicted to end. */
  prefetch: z
    .strictObject({
      enabled: z.boolean().default(false),
      lead_ms: z
        .number()
        .int("must be a whole number of milliseconds")
        .min(0, "must be between 0 and 60000")
        .max(60_000, "must be between 0 and 60000")
        .default(300),
    })
    .prefault({}),
});

/** The schema of each policy kind (input: a JSON document; output: the document with defaults filled). */
export const policySchemas = {
  retention: retentionPolicy,
  autoscaling: autoscalingPolicy,
  routing: routingPolicy,
  frontend: frontendPolicy,
} as const;

export type RetentionPolicy = z.output<typeof retentionPolicy>;
export type RetentionRule = RetentionPolicy["rules"][number];
export type AutoscalingPolicy = z.output<typeof autoscalingPolicy>;
export type RoutingPolicy = z.output<typeof routingPolicy>;
export type FrontendPolicy = z.output<typeof frontendPolicy>;
export type PolicyDocuments = { [K in PolicyKind]: z.output<(typeof policySchemas)[K]> };
export type PolicyDocumentInputs = { [K in PolicyKind]: z.input<(typeof policySchemas)[K]> };

export type PolicyError = { path: string; message: string };
export type PolicyValidation<K extends PolicyKind> =
  { ok: true; document: PolicyDocuments[K] } | { ok: false; errors: PolicyError[] };

/** The offload tiers a retention document sends blocks to, with the path of each rule's `offload.to` (for field errors). */
export function offloadTargets(doc: RetentionPolicy): { tier: OffloadTier; path: string }[] {
  const out: { tier: OffloadTier; path: string }[] = [];
  doc.rules.forEach((r, i) => {
    if (r.offload.to !== null) out.push({ tier: r.offload.to, path: `rules.${i}.offload.to` });
  });
  return out;
}

/** True when a string names a policy kind. */
export function isPolicyKind(value: string): value is PolicyKind {
  return (POLICY_KINDS as readonly string[]).includes(value);
}

/** The default document of every kind (a fresh copy each call). */
export function defaultPolicies(): PolicyDocuments {
  return {
    retention: retentionPolicy.parse({}),
    autoscaling: autoscalingPolicy.parse({}),
    routing: routingPolicy.parse({}),
    frontend: frontendPolicy.parse({}),
  };
}

/** Validate a decoded JSON value as a policy document of one kind; errors carry dotted field paths. */
export function validatePolicy<K extends PolicyKind>(kind: K, value: unknown): PolicyValidation<K> {
  const result = policySchemas[kind].safeParse(value);
  if (result.success) return { ok: true, document: result.data as PolicyDocuments[K] };
  return { ok: false, errors: policyErrors(result.error.issues) };
}

/** Zod issues as field-level errors; an unknown field is reported at its own path. */
export function policyErrors(issues: readonly z.core.$ZodIssue[]): PolicyError[] {
  const errors: PolicyError[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) errors.push({ path: joinPath([...issue.path, key]), message: "unknown field" });
    } else {
      errors.push({ path: joinPath(issue.path), message: issue.message });
    }
  }
  return errors;
}

function joinPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join(".");
}
