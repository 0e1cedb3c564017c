import { describe, expect, it } from "vitest";
import {
  defaultPolicies,
  isPolicyKind,
  POLICY_KINDS,
  policySchemas,
  validatePolicy,
  type PolicyKind,
} from "./policies";

const designExample = {
  retention: {
    rules: [
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
    ],
    default: { priority: 50, ttl_seconds: null, evict_on: "never" },
  },
  autoscaling: {
    adjustment_interval_seconds: 30,
    grace_period_seconds: 60,
    max_gpu_budget: 16,
    prefill: { min_replicas: 1, max_replicas: 8, queue_scale_up: 0.5, queue_scale_down: 0.2 },
    decode: { min_replicas: 1, max_replicas: 8, kv_scale_up: 0.9, kv_scale_down: 0.5 },
    aggregated: { min_replicas: 1, max_replicas: 16, kv_scale_up: 0.9, kv_scale_down: 0.5 },
    sla: { ttft_ms: 500, itl_ms: 50 },
  },
  routing: {
    overlap_credit: 1.0,
    prefill_load_scale: 1.0,
    temperature: 0.0,
    busy: {
      active_decode_blocks_threshold: null,
      active_prefill_tokens_threshold: null,
      active_prefill_tokens_threshold_frac: null,
    },
  },
  frontend: {
    strip_anthropic_preamble: false,
    tool_output_budget: { unit: "tokens", limit: 10000 },
    prefetch: { enabled: false, lead_ms: 300 },
  },
};

describe("defaults", () => {
  it("are exactly the documented example (docs/policies.md)", () => {
    expect(defaultPolicies()).toEqual(designExample);
  });

  it.each(POLICY_KINDS)("an empty %s document takes every default", (kind) => {
    const result = validatePolicy(kind, {});
    expect(result).toEqual({ ok: true, document: designExample[kind] });
  });

  it("fills omitted nested fields and keeps given ones", () => {
    const result = validatePolicy("autoscaling", { decode: { max_replicas: 4 } });
    expect(result.ok && result.document.decode).toEqual({
      min_replicas: 1,
      max_replicas: 4,
      kv_scale_up: 0.9,
      kv_scale_down: 0.5,
    });
    const rule = validatePolicy("retention", { rules: [{ name: "conv" }] });
    expect(rule.ok && rule.document.rules).toEqual([
      {
        name: "conv",
        match: { segment: "any", session_type: null, agent_role: null },
        priority: 50,
        ttl_seconds: null,
        pin: false,
        evict_on: "never",
        offload: { to: null, ttl_seconds: null },
        prefetch_on_resume: false,
      },
    ]);
  });

  it("returns fresh copies", () => {
    const a = defaultPolicies();
    a.retention.rules[0]!.priority = 1;
    expect(defaultPolicies().retention.rules[0]!.priority).toBe(90);
  });
});

type Case = [name: string, kind: PolicyKind, doc: unknown];

const valid: Case[] = [
  [
    "retention with session-type and role matches",
    "retention",
    {
      rules: [
        {
          name: "sub-state",
          match: { segment: "subagent_state", agent_role: "subagent" },
          priority: 10,
          evict_on: "agent_end",
        },
        { name: "ci-conv", match: { segment: "conversation", session_type: "ci" }, priority: 0, ttl_seconds: 60 },
        { name: "pin-tools", match: { segment: "tool_definitions" }, pin: true, priority: 100 },
      ],
    },
  ],
  [
    "retention with no rules",
    "retention",
    { rules: [], default: { priority: 0, ttl_seconds: 1, evict_on: "session_end" } },
  ],
  [
    "autoscaling with min = max = budget",
    "autoscaling",
    {
      max_gpu_budget: 3,
      prefill: { min_replicas: 1, max_replicas: 1 },
      decode: { min_replicas: 1, max_replicas: 1 },
      aggregated: { min_replicas: 1, max_replicas: 3 },
    },
  ],
  [
    "autoscaling with zero minimums",
    "autoscaling",
    { prefill: { min_replicas: 0 }, decode: { min_replicas: 0 }, aggregated: { min_replicas: 0 } },
  ],
  [
    "routing with sampling and busy thresholds",
    "routing",
    {
      temperature: 0.7,
      overlap_credit: 0.5,
      busy: {
        active_decode_blocks_threshold: 0.85,
        active_prefill_tokens_threshold: 20000,
        active_prefill_tokens_threshold_frac: 1.5,
      },
    },
  ],
  [
    "frontend with a byte budget",
    "frontend",
    { strip_anthropic_preamble: true, tool_output_budget: { unit: "bytes", limit: 10000 } },
  ],
];

describe("valid documents", () => {
  it.each(valid)("%s", (_name, kind, doc) => {
    const result = validatePolicy(kind, doc);
    expect(result.ok ? [] : result.errors).toEqual([]);
  });
});

const invalid: [name: string, kind: PolicyKind, doc: unknown, errors: { path: string; message?: string }[]][] = [
  ["not an object", "routing", 5, [{ path: "" }]],
  ["unknown top-level field", "routing", { temprature: 0.5 }, [{ path: "temprature", message: "unknown field" }]],
  [
    "unknown nested field",
    "autoscaling",
    { decode: { kv_scale_upp: 0.8 } },
    [{ path: "decode.kv_scale_upp", message: "unknown field" }],
  ],
  [
    "unknown field in a rule match",
    "retention",
    { rules: [{ name: "a", match: { segmnet: "any" } }] },
    [{ path: "rules.0.match.segmnet", message: "unknown field" }],
  ],
  [
    "unknown field in busy",
    "routing",
    { busy: { threshold: 1 } },
    [{ path: "busy.threshold", message: "unknown field" }],
  ],
  [
    "priority above 100",
    "retention",
    { rules: [{ name: "a", priority: 101 }] },
    [{ path: "rules.0.priority", message: "must be between 0 and 100" }],
  ],
  ["negative default priority", "retention", { default: { priority: -1 } }, [{ path: "default.priority" }]],
  [
    "fractional priority",
    "retention",
    { rules: [{ name: "a", priority: 5.5 }] },
    [{ path: "rules.0.priority", message: "must be an integer" }],
  ],
  [
    "zero ttl",
    "retention",
    { rules: [{ name: "a", ttl_seconds: 0 }] },
    [{ path: "rules.0.ttl_seconds", message: "must be positive when set (use null for no TTL)" }],
  ],
  ["negative default ttl", "retention", { default: { ttl_seconds: -5 } }, [{ path: "default.ttl_seconds" }]],
  [
    "duplicate rule names",
    "retention",
    { rules: [{ name: "a" }, { name: "b" }, { name: "a" }] },
    [{ path: "rules.2.name", message: "duplicates the name of rule 0" }],
  ],
  ["empty rule name", "retention", { rules: [{ name: "" }] }, [{ path: "rules.0.name", message: "is required" }]],
  [
    "unknown segment",
    "retention",
    { rules: [{ name: "a", match: { segment: "history" } }] },
    [{ path: "rules.0.match.segment" }],
  ],
  [
    "unknown agent role",
    "retention",
    { rules: [{ name: "a", match: { agent_role: "worker" } }] },
    [{ path: "rules.0.match.agent_role" }],
  ],
  ["unknown evict_on", "retention", { rules: [{ name: "a", evict_on: "tool_end" }] }, [{ path: "rules.0.evict_on" }]],
  [
    "prefill queue scale-down not below scale-up",
    "autoscaling",
    { prefill: { queue_scale_up: 0.3, queue_scale_down: 0.3 } },
    [{ path: "prefill.queue_scale_down", message: "must be below the scale-up threshold (0.3)" }],
  ],
  [
    "decode KV scale-down above scale-up",
    "autoscaling",
    { decode: { kv_scale_down: 0.95 } },
    [{ path: "decode.kv_scale_down", message: "must be below the scale-up threshold (0.9)" }],
  ],
  [
    "aggregated KV scale-down above scale-up",
    "autoscaling",
    { aggregated: { kv_scale_up: 0.4 } },
    [{ path: "aggregated.kv_scale_down", message: "must be below the scale-up threshold (0.4)" }],
  ],
  [
    "KV threshold above 1",
    "autoscaling",
    { decode: { kv_scale_up: 1.2 } },
    [{ path: "decode.kv_scale_up", message: "must be between 0 and 1" }],
  ],
  [
    "min above max",
    "autoscaling",
    { decode: { min_replicas: 5, max_replicas: 4 } },
    [{ path: "decode.min_replicas", message: "must not exceed max_replicas (4)" }],
  ],
  [
    "max above the GPU budget",
    "autoscaling",
    { max_gpu_budget: 8 },
    [{ path: "aggregated.max_replicas", message: "must not exceed max_gpu_budget (8)" }],
  ],
  [
    "minimums above the GPU budget",
    "autoscaling",
    {
      max_gpu_budget: 4,
      prefill: { min_replicas: 2, max_replicas: 4 },
      decode: { min_replicas: 2, max_replicas: 4 },
      aggregated: { min_replicas: 1, max_replicas: 4 },
    },
    [{ path: "max_gpu_budget", message: "must cover the sum of min_replicas (5)" }],
  ],
  [
    "zero adjustment interval",
    "autoscaling",
    { adjustment_interval_seconds: 0 },
    [{ path: "adjustment_interval_seconds" }],
  ],
  ["zero TTFT target", "autoscaling", { sla: { ttft_ms: 0 } }, [{ path: "sla.ttft_ms", message: "must be positive" }]],
  ["negative temperature", "routing", { temperature: -0.1 }, [{ path: "temperature", message: "must be at least 0" }]],
  ["negative overlap credit", "routing", { overlap_credit: -1 }, [{ path: "overlap_credit" }]],
  [
    "busy decode threshold above 1",
    "routing",
    { busy: { active_decode_blocks_threshold: 1.5 } },
    [{ path: "busy.active_decode_blocks_threshold" }],
  ],
  [
    "string where a boolean belongs",
    "frontend",
    { strip_anthropic_preamble: "yes" },
    [{ path: "strip_anthropic_preamble" }],
  ],
  ["unknown budget unit", "frontend", { tool_output_budget: { unit: "lines" } }, [{ path: "tool_output_budget.unit" }]],
  [
    "zero budget",
    "frontend",
    { tool_output_budget: { limit: 0 } },
    [{ path: "tool_output_budget.limit", message: "must be at least 1" }],
  ],
];

describe("invalid documents", () => {
  it.each(invalid)("%s", (_name, kind, doc, expected) => {
    const result = validatePolicy(kind, doc);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path)).toEqual(expected.map((e) => e.path));
    expected.forEach((e, i) => {
      if (e.message) expect(result.errors[i]!.message).toBe(e.message);
    });
  });

  it("reports several errors of one document at once", () => {
    const result = validatePolicy("autoscaling", { decode: { kv_scale_down: 0.95, min_replicas: 9 }, prefil: {} });
    expect(result.ok ? [] : result.errors.map((e) => e.path).sort()).toEqual([
      "decode.kv_scale_down",
      "decode.min_replicas",
      "prefil",
    ]);
  });
});

describe("kinds", () => {
  it("recognises exactly the four kinds", () => {
    expect(Object.keys(policySchemas)).toEqual([...POLICY_KINDS]);
    expect(isPolicyKind("routing")).toBe(true);
    expect(isPolicyKind("planner")).toBe(false);
  });
});
