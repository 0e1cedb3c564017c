import { describe, expect, it } from "vitest";
import { validatePolicy, type PolicyKind } from "./policies";

// Storage tiers in the policy documents: each retention rule's offload target and TTL, prefetch on resume, and the
// frontend's prefetch lead (docs/policies.md).

const valid: [name: string, kind: PolicyKind, doc: unknown][] = [
  [
    "retention offloading to each tier, with and without a TTL, prefetching on resume",
    "retention",
    {
      rules: [
        {
          name: "conv-host",
          match: { segment: "conversation" },
          offload: { to: "host", ttl_seconds: 600 },
          prefetch_on_resume: true,
        },
        { name: "sub-disk", offload: { to: "disk" } },
        { name: "shared-week", offload: { to: "shared", ttl_seconds: 7 * 24 * 3600 } },
        { name: "drop", offload: { to: null, ttl_seconds: null } },
      ],
    },
  ],
  ["frontend prefetch at both lead bounds", "frontend", { prefetch: { enabled: true, lead_ms: 0 } }],
  ["frontend prefetch at the upper lead bound", "frontend", { prefetch: { enabled: true, lead_ms: 60_000 } }],
];

describe("valid tier documents", () => {
  it.each(valid)("%s", (_name, kind, doc) => {
    const result = validatePolicy(kind, doc);
    expect(result.ok ? [] : result.errors).toEqual([]);
  });
});

const invalid: [name: string, kind: PolicyKind, doc: unknown, errors: { path: string; message?: string }[]][] = [
  [
    "offload to device",
    "retention",
    { rules: [{ name: "a", offload: { to: "device" } }] },
    [{ path: "rules.0.offload.to", message: "must be one of host, disk, shared or null" }],
  ],
  [
    "offload to an unknown tier",
    "retention",
    { rules: [{ name: "a", offload: { to: "nvme" } }] },
    [{ path: "rules.0.offload.to" }],
  ],
  [
    "offload TTL above 7 days",
    "retention",
    { rules: [{ name: "a", offload: { to: "disk", ttl_seconds: 7 * 24 * 3600 + 1 } }] },
    [{ path: "rules.0.offload.ttl_seconds", message: "must be at most 7 days" }],
  ],
  [
    "zero offload TTL",
    "retention",
    { rules: [{ name: "a", offload: { to: "host", ttl_seconds: 0 } }] },
    [{ path: "rules.0.offload.ttl_seconds", message: "must be positive when set (use null for no TTL)" }],
  ],
  [
    "offload TTL without a target",
    "retention",
    { rules: [{ name: "a", offload: { ttl_seconds: 60 } }] },
    [{ path: "rules.0.offload.ttl_seconds", message: "must be null when blocks are dropped (to: null)" }],
  ],
  [
    "unknown field in offload",
    "retention",
    { rules: [{ name: "a", offload: { tier: "host" } }] },
    [{ path: "rules.0.offload.tier", message: "unknown field" }],
  ],
  [
    "prefetch_on_resume not a boolean",
    "retention",
    { rules: [{ name: "a", prefetch_on_resume: "yes" }] },
    [{ path: "rules.0.prefetch_on_resume" }],
  ],
  [
    "prefetch lead above 60 s",
    "frontend",
    { prefetch: { lead_ms: 60_001 } },
    [{ path: "prefetch.lead_ms", message: "must be between 0 and 60000" }],
  ],
  [
    "negative prefetch lead",
    "frontend",
    { prefetch: { enabled: true, lead_ms: -1 } },
    [{ path: "prefetch.lead_ms", message: "must be between 0 and 60000" }],
  ],
  [
    "fractional prefetch lead",
    "frontend",
    { prefetch: { lead_ms: 2.5 } },
    [{ path: "prefetch.lead_ms", message: "must be a whole number of milliseconds" }],
  ],
  [
    "unknown field in prefetch",
    "frontend",
    { prefetch: { lead_seconds: 1 } },
    [{ path: "prefetch.lead_seconds", message: "unknown field" }],
  ],
];

describe("invalid tier documents", () => {
  it.each(invalid)("%s", (_name, kind, doc, expected) => {
    const result = validatePolicy(kind, doc);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path)).toEqual(expected.map((e) => e.path));
    expected.forEach((e, i) => {
      if (e.message) expect(result.errors[i]!.message).toBe(e.message);
    });
  });
});
