import { createHash } from "node:crypto";
import type { PolicyKind } from "../../lib/policies/policies";

/** JSON with every object's keys sorted, so equal documents written in any key order serialise the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The identity of a policy's content: sha256 (hex) of its kind followed by the document as canonical JSON. */
export function policyContentHash(kind: PolicyKind, document: unknown): string {
  return createHash("sha256").update(kind).update(canonicalJson(document)).digest("hex");
}
