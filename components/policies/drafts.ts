// Pure helpers of the policies page: drafts against published versions, field errors, display values.
import { NO_DATA } from "@/components/format";
import { diffDocuments, type DiffEntry } from "@/lib/policies/versions";
import type { PolicyError } from "@/lib/policies/policies";

export type Rebase = { document: unknown; overlaps: string[] };

/**
 * Re-apply a draft made on `base` on top of `latest`: each leaf the draft changed is written into a copy of
 * `latest`, so the other operator's changes to other fields stay. When an array changed length on either side
 * (rules added or removed), leaf paths no longer line up and the draft is kept whole. `overlaps` lists the paths
 * both sides changed (the draft's value wins).
 */
export function rebaseDraft(base: unknown, draft: unknown, latest: unknown): Rebase {
  const mine = diffDocuments(base, draft);
  const theirs = diffDocuments(base, latest);
  const theirPaths = new Set(theirs.map((d) => d.path));
  const overlaps = mine.filter((d) => theirPaths.has(d.path)).map((d) => d.path);
  const reshaped = [...mine, ...theirs].some((d) => d.before === undefined || d.after === undefined);
  if (reshaped || !isContainer(latest)) return { document: structuredClone(draft), overlaps };
  const out = structuredClone(latest) as Record<string, unknown>;
  for (const d of mine) setPath(out, d.path.split("."), d.after);
  return { document: out, overlaps };
}

function isContainer(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: unknown = target;
  for (const key of path.slice(0, -1)) {
    if (!isContainer(node)) return;
    node = (node as Record<string, unknown>)[key];
  }
  if (isContainer(node)) (node as Record<string, unknown>)[path[path.length - 1]!] = structuredClone(value);
}

type TrpcErrorData = { code?: string; issues?: PolicyError[] | null; details?: unknown } | null | undefined;

/** Field-level errors of a refused publish: the router's invalid-document details, or zod issues under `document.`. */
export function serverFieldErrors(data: TrpcErrorData): PolicyError[] {
  const details = data?.details as { errors?: PolicyError[] } | null | undefined;
  if (details && Array.isArray(details.errors)) return details.errors;
  return (data?.issues ?? [])
    .filter((i) => i.path.startsWith("document."))
    .map((i) => ({ path: i.path.slice("document.".length), message: i.message }));
}

export type Conflict = { latest: number; base: number | null; diff: DiffEntry[] };

/** The details of a CONFLICT answer, or null for any other error. */
export function conflictDetails(data: TrpcErrorData): Conflict | null {
  if (data?.code !== "CONFLICT") return null;
  const d = data.details as Partial<Conflict> | null | undefined;
  if (!d || typeof d.latest !== "number" || !Array.isArray(d.diff)) return null;
  return { latest: d.latest, base: typeof d.base === "number" ? d.base : null, diff: d.diff };
}

/** A document value as one short line: null as "none", strings quoted, objects as compact JSON. */
export function formatValue(v: unknown): string {
  if (v === undefined) return NO_DATA;
  if (v === null) return "none";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** Reasons per field path, e.g. a target's rejection `{ path: "rules.0.ttl_seconds" }` under that path. */
export function errorsByPath<E extends { path: string }>(errors: readonly E[]): Map<string, E[]> {
  const out = new Map<string, E[]>();
  for (const e of errors) out.set(e.path, [...(out.get(e.path) ?? []), e]);
  return out;
}
