import { createHash } from "node:crypto";

// A policy document's identity by content: the same kind and fields give the same hash whatever the key order.

/** sha256 hex of the kind, a newline and the document as JSON with object keys sorted (arrays keep their order). */
export function policyContentHash(kind: string, document: unknown): string {
  return createHash("sha256")
    .update(`${kind}\n${canonicalJson(document)}`)
    .digest("hex");
}

/** JSON with every object's keys in sorted order; undefined members are dropped as JSON.stringify drops them. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(",")}}`;
}
