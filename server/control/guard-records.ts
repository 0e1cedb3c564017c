import { appendAudit, getVersion } from "../../db/store/control";
import {
  guardByKey,
  insertGuard,
  updateGuard,
  updateOpenGuard,
  type GuardKey,
  type GuardRow,
} from "../../db/store/guards";
import type { Store } from "../../db/store/store";
import type { GuardSpec } from "../../lib/policies/guard-input";
import { measuredOf, type GuardDecision, type GuardState } from "./guard";
import type { PolicyKind } from "../../lib/policies/policies";
import { publishVersion, rollbackVersion, type PublishRequest } from "./publish";
import type { PublishDecision } from "../../lib/policies/versions";

// What a guard does to the store (either engine): added with its version, its evaluation recorded, a trip rolled back,
// each in one transaction (store.tx). The decisions are guard.ts's.

/** The author of what a guard does, in versions and the audit log. */
export const GUARD_ACTOR = "guard";

/** Publish a version and, when it published, store its guard (waiting for a target to apply it), atomically. */
export async function publishGuarded<K extends PolicyKind>(
  s: Store,
  req: PublishRequest & { kind: K },
  guard: GuardSpec | null,
): Promise<PublishDecision<K>> {
  return s.tx(async (tx) => {
    const decision = await publishVersion(tx, req);
    if (!decision.ok || !guard) return decision;
    await insertGuard(tx, {
      cluster: req.cluster,
      kind: req.kind,
      version: decision.version,
      ...guard,
      createdAt: req.now,
      state: "waiting",
      message: "waiting for a target to apply this version",
    });
    await appendAudit(tx, req.now, {
      actor: req.author,
      action: "guard.add",
      cluster: req.cluster,
      kind: req.kind,
      version: decision.version,
      detail: guard,
    });
    return decision;
  });
}

/** Record a decision that rolls nothing back; a terminal state (passed, inconclusive, superseded) is audited. */
export async function saveGuardState(
  s: Store,
  guard: GuardKey,
  state: GuardState,
  fields: { message: string; appliedAt?: number | null; detail?: unknown },
  now: number,
): Promise<void> {
  await s.tx(async (tx) => {
    const changed = await updateOpenGuard(tx, guard, {
      state,
      message: fields.message,
      checkedAt: now,
      ...(fields.appliedAt !== undefined ? { appliedAt: fields.appliedAt } : {}),
      ...(fields.detail !== undefined ? { detail: JSON.stringify(fields.detail) } : {}),
    });
    if (changed && state !== "waiting" && state !== "watching")
      await appendAudit(tx, now, {
        actor: GUARD_ACTOR,
        action: `guard.${state}`,
        cluster: guard.cluster,
        kind: guard.kind,
        version: guard.version,
        detail: { message: fields.message },
      });
  });
}

/**
 * A tripped guard: publish the content of the version the guarded one was based on as a new version (author "guard",
 * the reason as its comment), mark the guard tripped with that version, and audit why, in one transaction. A version
 * published since (or a guard no longer open) rolls nothing back: the guard is marked superseded instead. Returns the
 * rollback version, or null.
 */
export async function tripGuard(
  s: Store,
  guard: GuardRow,
  decision: Pick<GuardDecision, "message" | "reason" | "deltas" | "measuredMs">,
  appliedAt: number,
  now: number,
): Promise<number | null> {
  return s.tx(async (tx) => {
    const current = await guardByKey(tx, guard);
    if (!current || (current.state !== "waiting" && current.state !== "watching")) return null;
    const guarded = await getVersion(tx, guard.cluster, guard.kind, guard.version);
    const previous = guarded?.basedOn ?? null;
    const after = measuredOf(decision.measuredMs, guard.windowMinutes);
    const comment = `rolled back by guard: ${decision.reason} (v${guard.version}, after ${after})`;
    const rolled =
      previous === null
        ? null
        : await rollbackVersion(tx, {
            cluster: guard.cluster,
            kind: guard.kind as PolicyKind,
            to: previous,
            baseVersion: guard.version,
            author: GUARD_ACTOR,
            comment,
            now,
          });
    if (!rolled?.ok) {
      await saveGuardState(
        tx,
        guard,
        "superseded",
        { message: "a newer version was published before it tripped" },
        now,
      );
      return null;
    }
    await updateGuard(tx, guard, {
      state: "tripped",
      message: decision.message,
      reason: decision.reason,
      detail: JSON.stringify(decision.deltas),
      appliedAt,
      checkedAt: now,
      rollbackVersion: rolled.version,
    });
    await appendAudit(tx, now, {
      actor: GUARD_ACTOR,
      action: "guard.tripped",
      cluster: guard.cluster,
      kind: guard.kind,
      version: guard.version,
      detail: { reason: decision.reason, message: decision.message, rollbackVersion: rolled.version, to: previous },
    });
    return rolled.version;
  });
}
