import { validatePolicy, type PolicyDocuments, type PolicyError, type PolicyKind } from "./policies";

// Version rules of the policy documents (docs/policies.md), free of db and tRPC: callers load the latest version, ask for a
// decision here and persist it.

export type DiffEntry = { path: string; before: unknown; after: unknown };

/** A stored version as the rules need it. */
export type VersionRecord = { version: number; document: unknown };

export type PublishDecision<K extends PolicyKind> =
  | { ok: true; version: number; document: PolicyDocuments[K]; basedOn: number | null; diff: DiffEntry[] }
  | { ok: false; reason: "invalid"; errors: PolicyError[] }
  | { ok: false; reason: "conflict"; latest: number; base: number | null; diff: DiffEntry[] };

/** Structural diff of two JSON values: leaf paths (dotted, array indices as numbers) whose values differ, in document order. */
export function diffDocuments(before: unknown, after: unknown): DiffEntry[] {
  const out: DiffEntry[] = [];
  walk(before, after, [], out);
  return out;
}

function walk(a: unknown, b: unknown, path: string[], out: DiffEntry[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], [...path, String(i)], out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    for (const key of keys) walk(a[key], b[key], [...path, key], out);
    return;
  }
  if (!sameValue(a, b)) out.push({ path: path.join("."), before: a, after: b });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Decide a publish of `input` on top of `baseVersion` (null: nothing published yet) when `latest` is the newest
 * stored version (null when none). A stale base is a conflict carrying the diff from the base to the latest.
 */
export function decidePublish<K extends PolicyKind>(
  kind: K,
  input: unknown,
  baseVersion: number | null,
  latest: VersionRecord | null,
  base: VersionRecord | null,
): PublishDecision<K> {
  const checked = validatePolicy(kind, input);
  if (!checked.ok) return { ok: false, reason: "invalid", errors: checked.errors };
  const latestVersion = latest?.version ?? null;
  if (baseVersion !== latestVersion) {
    return {
      ok: false,
      reason: "conflict",
      latest: latestVersion ?? 0,
      base: baseVersion,
      diff: diffDocuments(base?.document ?? null, latest?.document ?? null),
    };
  }
  return {
    ok: true,
    version: (latestVersion ?? 0) + 1,
    document: checked.document,
    basedOn: latestVersion,
    diff: diffDocuments(latest?.document ?? null, checked.document),
  };
}

/** Decide a rollback: publish `target`'s content as a new version on top of `latest`. */
export function decideRollback<K extends PolicyKind>(
  kind: K,
  target: VersionRecord,
  latest: VersionRecord,
): PublishDecision<K> {
  return decidePublish(kind, target.document, latest.version, latest, latest);
}
