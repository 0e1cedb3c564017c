import { offloadTargets, validatePolicy, type OffloadTier, type PolicyError } from "../../lib/policies/policies";

// The simulated cluster's KV storage tiers below device, as its config or scenario sets them, and the control-API
// check that a retention document offloads only to tiers the cluster has (docs/policies.md).

/** Blocks of each lower tier; 0 means the cluster has no such tier. */
export type TierConfig = { host_blocks: number; disk_blocks: number; shared_blocks: number };

export const NO_TIERS: TierConfig = Object.freeze({ host_blocks: 0, disk_blocks: 0, shared_blocks: 0 });
const MAX_TIER_BLOCKS = 1_000_000_000;
const KEYS = ["host_blocks", "disk_blocks", "shared_blocks"] as const;

/** Parse a `tiers` option (omitted keys: no such tier, 0); zero, negative, fractional, too large or unknown keys are refused by path. */
export function parseTierConfig(
  value: unknown,
): { ok: true; tiers: TierConfig } | { ok: false; errors: PolicyError[] } {
  if (value === undefined || value === null) return { ok: true, tiers: { ...NO_TIERS } };
  if (typeof value !== "object" || Array.isArray(value))
    return {
      ok: false,
      errors: [{ path: "tiers", message: "must be an object { host_blocks, disk_blocks, shared_blocks }" }],
    };
  const errors: PolicyError[] = [];
  const tiers: TierConfig = { ...NO_TIERS };
  for (const [key, v] of Object.entries(value)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      errors.push({ path: `tiers.${key}`, message: "unknown field" });
      continue;
    }
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_TIER_BLOCKS) {
      errors.push({
        path: `tiers.${key}`,
        message: `must be a whole number of blocks between 1 and ${MAX_TIER_BLOCKS} (leave the tier out for none)`,
      });
      continue;
    }
    tiers[key as (typeof KEYS)[number]] = v;
  }
  return errors.length ? { ok: false, errors } : { ok: true, tiers };
}

/** Parse the `--tiers host=N,disk=N,shared=N` command-line form into the same shape. */
export function parseTierFlag(text: string): { ok: true; tiers: TierConfig } | { ok: false; errors: PolicyError[] } {
  const out: Record<string, unknown> = {};
  for (const part of text.split(",").filter(Boolean)) {
    const [name, n] = part.split("=");
    out[`${name!.trim()}_blocks`] = n !== undefined && /^-?\d+$/.test(n.trim()) ? Number(n.trim()) : n;
  }
  return parseTierConfig(out);
}

/** Parse `--tier-bandwidth host=25,disk=5,shared=2` (GB/s, decimals allowed) over the defaults; bytes per second out. */
export function parseBandwidthFlag(
  text: string,
  defaults: Record<OffloadTier, number>,
): { ok: true; bandwidth: Record<OffloadTier, number> } | { ok: false; errors: PolicyError[] } {
  const bandwidth = { ...defaults };
  const errors: PolicyError[] = [];
  for (const part of text.split(",").filter(Boolean)) {
    const [name, n] = part.split("=").map((x) => x.trim());
    if (name !== "host" && name !== "disk" && name !== "shared") {
      errors.push({ path: `tier_bandwidth.${name}`, message: "unknown tier (host, disk or shared)" });
      continue;
    }
    const gbps = n !== undefined && /^\d+(\.\d+)?$/.test(n) ? Number(n) : NaN;
    if (!(gbps > 0 && gbps <= 10_000)) {
      errors.push({ path: `tier_bandwidth.${name}`, message: "must be GB/s above 0 and at most 10000" });
      continue;
    }
    bandwidth[name] = gbps * 1e9;
  }
  return errors.length ? { ok: false, errors } : { ok: true, bandwidth };
}

/** The lower tiers a cluster has. */
export function presentTiers(t: TierConfig): OffloadTier[] {
  return (["host", "disk", "shared"] as const).filter((tier) => t[`${tier}_blocks`] > 0);
}

/** Field errors for a retention document that offloads to a tier the cluster lacks (none for other kinds or invalid documents). */
export function offloadTierErrors(kind: string, document: unknown, tiers: TierConfig): PolicyError[] {
  if (kind !== "retention") return [];
  const parsed = validatePolicy("retention", document);
  if (!parsed.ok) return [];
  const have = presentTiers(tiers);
  const has = have.length ? `it has ${have.join(", ")}` : "it has device memory only";
  return offloadTargets(parsed.document)
    .filter((t) => !have.includes(t.tier))
    .map((t) => ({ path: t.path, message: `this cluster has no ${t.tier} tier (${has})` }));
}
