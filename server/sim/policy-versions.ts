import { validatePolicy, type PolicyError, type PolicyKind } from "../../lib/policies/policies";

// Whether a policy version pushed to the simulator may replace the one its line applies: the rules a target applies
// to versions (numbered, never older, a number not reused for another document), apart from the simulation that keeps
// the lines. Pure.

export type PolicyState = { version: number; document: unknown; applied_at: number };
export type PolicyAck =
  | { ok: true; kind: PolicyKind; version: number; status: "applied"; applied_at: number }
  | { ok: false; kind: PolicyKind; version: number; status: "rejected"; errors: PolicyError[] };

const MAX_VERSION = 1e9;

/**
 * The document to apply, or why the version is refused. `refused`: errors found before the document (it is then not
 * validated); `current`: what the line applies now.
 */
export function checkVersion(
  kind: PolicyKind,
  version: number,
  document: unknown,
  refused: PolicyError[],
  current: PolicyState,
): { ok: true; document: unknown } | { ok: false; errors: PolicyError[] } {
  const result = refused.length ? { ok: false as const, errors: refused } : validatePolicy(kind, document);
  let errors: PolicyError[] = result.ok ? [] : result.errors;
  if (!validVersion(version))
    errors = [{ path: "version", message: "must be an integer between 0 and 1000000000" }, ...errors];
  else if (version < current.version)
    errors = [{ path: "version", message: `is older than the applied version ${current.version}` }, ...errors];
  else if (
    result.ok &&
    version === current.version &&
    JSON.stringify(result.document) !== JSON.stringify(current.document)
  ) {
    errors = [{ path: "version", message: `version ${version} is already applied with a different document` }];
  }
  return errors.length || !result.ok ? { ok: false, errors } : { ok: true, document: result.document };
}

/** The version a rejection's ack names (0 when the version itself was not one). */
export function ackedVersion(version: number): number {
  return validVersion(version) ? version : 0;
}

/** A rejection's errors as the ack's message (at most 2,048 characters). */
export function rejectionMessage(errors: readonly PolicyError[]): string {
  return errors
    .map((e) => `${e.path || "document"}: ${e.message}`)
    .join("; ")
    .slice(0, 2048);
}

function validVersion(version: number): boolean {
  return Number.isInteger(version) && version >= 0 && version <= MAX_VERSION;
}
