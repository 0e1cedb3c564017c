import { and, eq, inArray } from "drizzle-orm";
import { measuredOf, type GuardDecision, type GuardSpec, type GuardState } from "../../server/control/guard";
import type { PolicyKind } from "../../server/control/policies";
import type { PublishDecision } from "../../server/control/versions";
import type { Db } from "../client";
import { policyGuards } from "../schema";
import { appendAudit, getVersion, publishVersion, rollbackVersion, type PublishRequest } from "./control";

/** The author of what a guard does, in versions and the audit log. */
export const GUARD_ACTOR = "guard";

export type GuardRow = typeof policyGuards.$inferSelect;
const IMMEDIATE = { behavior: "immediate" } as const;

/** Publish a version and, when it published, store its guard (waiting for a target to apply it), atomically. */
export function publishGuarded<K extends PolicyKind>(
  db: Db,
  req: PublishRequest & { kind: K },
  guard: GuardSpec | null,
): PublishDecision<K> {
  // IMMEDIATE: take the write lock before reading the latest version, so a busy store waits (busy_timeout) instead of
  // failing the read-to-write upgrade while ingest writes.
  return db.transaction(() => {
    const decision = publishVersion(db, req);
    if (!decision.ok || !guard) return decision;
    db.insert(policyGuards)
      .values({
        kind: req.kind,
        version: decision.version,
        ...guard,
        createdAt: req.now,
        state: "waiting",
        message: "waiting for a target to apply this version",
      })
      .run();
    appendAudit(db, req.now, {
      actor: req.author,
      action: "guard.add",
      kind: req.kind,
      version: decision.version,
      detail: guard,
    });
    return decision;
  }, IMMEDIATE);
}

/** Guards still being evaluated (waiting for an ack or watching), oldest first. */
export function openGuards(db: Db): GuardRow[] {
  return db
    .select()
    .from(policyGuards)
    .where(inArray(policyGuards.state, ["waiting", "watching"]))
    .orderBy(policyGuards.createdAt)
    .limit(100)
    .all();
}

/** The guards of the given versions of a kind. */
export function guardsOf(db: Db, kind: string, versions: readonly number[]): GuardRow[] {
  if (versions.length === 0) return [];
  return db
    .select()
    .from(policyGuards)
    .where(and(eq(policyGuards.kind, kind), inArray(policyGuards.version, [...versions])))
    .all();
}

/** Record a decision that rolls nothing back; a terminal state (passed, inconclusive, superseded) is audited. */
export function saveGuardState(
  db: Db,
  guard: Pick<GuardRow, "kind" | "version">,
  state: GuardState,
  fields: { message: string; appliedAt?: number | null; detail?: unknown },
  now: number,
): void {
  db.transaction(() => {
    const res = db
      .update(policyGuards)
      .set({
        state,
        message: fields.message,
        checkedAt: now,
        ...(fields.appliedAt !== undefined ? { appliedAt: fields.appliedAt } : {}),
        ...(fields.detail !== undefined ? { detail: JSON.stringify(fields.detail) } : {}),
      })
      .where(
        and(
          eq(policyGuards.kind, guard.kind),
          eq(policyGuards.version, guard.version),
          inArray(policyGuards.state, ["waiting", "watching"]),
        ),
      )
      .run();
    if (res.changes > 0 && state !== "waiting" && state !== "watching")
      appendAudit(db, now, {
        actor: GUARD_ACTOR,
        action: `guard.${state}`,
        kind: guard.kind,
        version: guard.version,
        detail: { message: fields.message },
      });
  }, IMMEDIATE);
}

/**
 * A tripped guard: publish the content of the version the guarded one was based on as a new version (author "guard",
 * the reason as its comment), mark the guard tripped with that version, and audit why, in one transaction. A version
 * published since (or a guard no longer open) rolls nothing back: the guard is marked superseded instead. Returns the
 * rollback version, or null.
 */
export function tripGuard(
  db: Db,
  guard: GuardRow,
  decision: Pick<GuardDecision, "message" | "reason" | "deltas" | "measuredMs">,
  appliedAt: number,
  now: number,
): number | null {
  return db.transaction(() => {
    const current = db
      .select()
      .from(policyGuards)
      .where(and(eq(policyGuards.kind, guard.kind), eq(policyGuards.version, guard.version)))
      .get();
    if (!current || (current.state !== "waiting" && current.state !== "watching")) return null;
    const guarded = getVersion(db, guard.kind, guard.version);
    const previous = guarded?.basedOn ?? null;
    const after = measuredOf(decision.measuredMs, guard.windowMinutes);
    const comment = `rolled back by guard: ${decision.reason} (v${guard.version}, after ${after})`;
    const rolled =
      previous === null
        ? null
        : rollbackVersion(db, {
            kind: guard.kind as PolicyKind,
            to: previous,
            baseVersion: guard.version,
            author: GUARD_ACTOR,
            comment,
            now,
          });
    if (!rolled?.ok) {
      saveGuardState(db, guard, "superseded", { message: "a newer version was published before it tripped" }, now);
      return null;
    }
    db.update(policyGuards)
      .set({
        state: "tripped",
        message: decision.message,
        reason: decision.reason,
        detail: JSON.stringify(decision.deltas),
        appliedAt,
        checkedAt: now,
        rollbackVersion: rolled.version,
      })
      .where(and(eq(policyGuards.kind, guard.kind), eq(policyGuards.version, guard.version)))
      .run();
    appendAudit(db, now, {
      actor: GUARD_ACTOR,
      action: "guard.tripped",
      kind: guard.kind,
      version: guard.version,
      detail: { reason: decision.reason, message: decision.message, rollbackVersion: rolled.version, to: previous },
    });
    return rolled.version;
  }, IMMEDIATE);
}

/** Versions a tripped guard published in [from, to): the guarded version and why, for the charts' policy marks. */
export function guardRollbacksBetween(
  db: Db,
  from: number,
  to: number,
): { kind: string; version: number; rollbackVersion: number; reason: string | null }[] {
  return db.$client
    .prepare(
      `SELECT g.kind, g.version, g.rollback_version AS rollbackVersion, g.reason FROM policy_guards g
       JOIN policy_versions v ON v.kind = g.kind AND v.version = g.rollback_version
       WHERE g.state = 'tripped' AND v.created_at >= ? AND v.created_at < ? LIMIT 100`,
    )
    .all(from, to) as { kind: string; version: number; rollbackVersion: number; reason: string | null }[];
}
