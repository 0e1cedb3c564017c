import { z } from "zod";
import { POLICY_KINDS, validatePolicy, type PolicyKind } from "../../lib/policies/policies";
import { createHash } from "node:crypto";
import { canonicalJson, policyContentHash } from "../control/content-hash";
import { AppError } from "../errors";
import type { ClusterOverride } from "./types";
import { clusterName, DEFAULT_CLUSTER } from "../../lib/cluster-name";

// A preview request as the procedure and POST /api/policies/preview take it, checked before anything is replayed:
// the candidate document field by field, the window (default the last hour, at most 24 h), the cluster override.

export const PREVIEW_MAX_WINDOW_MS = 24 * 3_600_000;
export const PREVIEW_DEFAULT_WINDOW_MS = 3_600_000;

const ms = z.number().int().min(0).max(8.64e15);
const bounded = (max: number) => z.number().int().min(1).max(max);

export const previewInput = z.strictObject({
  kind: z.enum(POLICY_KINDS),
  document: z.unknown(),
  window: z.strictObject({ from: ms, to: ms }).optional(),
  cluster: z
    .strictObject({ workers: bounded(256), kv_total_blocks: bounded(4_194_304), block_size: bounded(1_048_576) })
    .optional(),
  /** Documents in force for kinds whose version the console does not hold (a target's start configuration). */
  baseline: z.partialRecord(z.enum(POLICY_KINDS), z.unknown()).optional(),
  /** The cluster whose recorded traffic, workers and versions are replayed (default: the default cluster). */
  scope: z.strictObject({ cluster: clusterName }).optional(),
});
export type PreviewInput = z.input<typeof previewInput>;

export type PreparedPreview = {
  kind: PolicyKind;
  document: unknown;
  contentHash: string;
  from: number;
  to: number;
  cluster: ClusterOverride | null;
  clusterKey: string;
  baseline: Partial<Record<PolicyKind, unknown>>;
  /** The cluster replayed. */
  scope: string;
};

/** Check a request at `now`: invalid documents, windows and overrides are refused (AppError) before any replay. */
export function preparePreview(raw: unknown, now: number): PreparedPreview {
  const parsed = previewInput.safeParse(raw);
  if (!parsed.success)
    throw new AppError("BAD_REQUEST", "invalid preview request", {
      errors: parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    });
  const input = parsed.data;
  const checked = validatePolicy(input.kind, input.document);
  if (!checked.ok)
    throw new AppError("BAD_REQUEST", "invalid policy document", {
      errors: checked.errors.map((e) => ({ path: e.path ? `document.${e.path}` : "document", message: e.message })),
    });
  const to = input.window?.to ?? now;
  const from = input.window?.from ?? to - PREVIEW_DEFAULT_WINDOW_MS;
  if (from >= to)
    throw new AppError("BAD_REQUEST", "the window must end after it starts", {
      errors: [{ path: "window.to", message: "must be after window.from" }],
    });
  if (to - from > PREVIEW_MAX_WINDOW_MS)
    throw new AppError("BAD_REQUEST", "a preview replays at most 24 h: choose a shorter window", {
      errors: [{ path: "window", message: "is longer than the limit of 24 h" }],
      limit_ms: PREVIEW_MAX_WINDOW_MS,
    });
  const cluster = input.cluster ?? null;
  const scope = input.scope?.cluster ?? DEFAULT_CLUSTER;
  const baseline: Partial<Record<PolicyKind, unknown>> = {};
  for (const [k, doc] of Object.entries(input.baseline ?? {}) as [PolicyKind, unknown][]) {
    const b = validatePolicy(k, doc);
    if (!b.ok)
      throw new AppError("BAD_REQUEST", "invalid baseline document", {
        errors: b.errors.map((e) => ({ path: `baseline.${k}${e.path ? `.${e.path}` : ""}`, message: e.message })),
      });
    baseline[k] = b.document;
  }
  return {
    kind: input.kind,
    document: checked.document,
    contentHash: policyContentHash(input.kind, checked.document),
    from,
    to,
    cluster,
    // Results kept for the default cluster before scopes existed keep their key.
    clusterKey:
      cluster || Object.keys(baseline).length || scope !== DEFAULT_CLUSTER
        ? createHash("sha256")
            .update(canonicalJson(scope === DEFAULT_CLUSTER ? { cluster, baseline } : { cluster, baseline, scope }))
            .digest("hex")
        : "",
    baseline,
    scope,
  };
}
