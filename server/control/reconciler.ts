import {
  getVersion,
  latestVersionNumbers,
  listStatuses,
  listTargets,
  putStatus,
  type StatusRow,
  type LatestNumbers,
  type TargetRow,
} from "../../db/store/control";
import type { Store } from "../../db/store/store";
import type { PolicyError, PolicyKind } from "../../lib/policies/policies";
import type { AdapterKind } from "../../lib/policies/targets";
import { errorMessage, log } from "../observability/logger";
import { startPasses } from "./passes";

// Pushes each kind's latest version to every enabled target of that kind. The desired and applied versions live in
// rollout_status, so a restarted dashboard carries on where it stopped. It runs on the leader only (server/jobs/
// leader.ts) and reads the versions from the shared store each pass, so a version any process published is pushed.

export type PushResult = { status: "applied" } | { status: "rejected"; message: string; errors?: PolicyError[] };

/** One target's push channel; throws when the target cannot be reached (the push is retried). */
export interface PushAdapter {
  push(kind: PolicyKind, version: number, document: unknown): Promise<PushResult>;
}

/** Per adapter kind: how to reach a target of that kind. */
export type Adapters = Partial<Record<AdapterKind, (target: TargetRow) => PushAdapter>>;

export type RolloutState = "in_sync" | "pending" | "stale" | "rejected" | "unreachable";
export type StatusView = Pick<
  StatusRow,
  "targetId" | "kind" | "desiredVersion" | "appliedVersion" | "state" | "attempts" | "nextRetryAt"
>;
export type Action =
  | { type: "push"; targetId: string; kind: PolicyKind; version: number; attempts: number }
  | { type: "stale"; targetId: string; kind: PolicyKind; version: number };

export type Backoff = { baseMs: number; capMs: number };
export const DEFAULT_BACKOFF: Backoff = { baseMs: 1_000, capMs: 5 * 60_000 };

/** Delay (ms) before retry number `attempts` (1 = first failure): base doubled per failure, capped. */
export function retryDelay(attempts: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  return Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
}

/**
 * What to do now: push a kind's latest version to each enabled target not yet at it, unless the target already
 * refused that version or its retry time (Unix ms) is still ahead; a disabled target behind the latest is stale.
 */
export function nextActions(
  now: number,
  targets: readonly TargetRow[],
  statuses: readonly StatusView[],
  latest: LatestNumbers,
): Action[] {
  const byKey = new Map(statuses.map((s) => [`${s.targetId}\u0000${s.kind}`, s]));
  const actions: Action[] = [];
  for (const target of targets) {
    // A target receives its own cluster's versions, never another cluster's.
    const ofCluster = latest.get(target.cluster) ?? {};
    for (const kind of target.kinds) {
      const version = ofCluster[kind];
      if (version === undefined) continue;
      const status = byKey.get(`${target.id}\u0000${kind}`);
      if (status?.appliedVersion === version) continue;
      if (!target.enabled) {
        if (status?.state !== "stale" || status.desiredVersion !== version)
          actions.push({ type: "stale", targetId: target.id, kind, version });
        continue;
      }
      const sameVersion = status?.desiredVersion === version;
      if (sameVersion && status.state === "rejected") continue;
      if (sameVersion && status.state === "unreachable" && status.nextRetryAt !== null && status.nextRetryAt > now)
        continue;
      actions.push({ type: "push", targetId: target.id, kind, version, attempts: sameVersion ? status.attempts : 0 });
    }
  }
  return actions;
}

function describeRejection(result: Extract<PushResult, { status: "rejected" }>): string {
  const fields = (result.errors ?? []).map((e) => `${e.path || "(document)"}: ${e.message}`);
  return fields.length ? `${result.message} — ${fields.join("; ")}` : result.message;
}

/** One pass: decide, push (outside any transaction) and record each outcome; resolves when every push settled. */
export async function reconcileOnce(
  s: Store,
  adapters: Adapters,
  now: number,
  backoff: Backoff = DEFAULT_BACKOFF,
): Promise<Action[]> {
  const targets = await listTargets(s);
  const statuses = await listStatuses(s);
  const actions = nextActions(now, targets, statuses, await latestVersionNumbers(s));
  const previous = new Map(statuses.map((st) => [`${st.targetId}\u0000${st.kind}`, st]));
  const record = (a: Action, fields: Partial<StatusRow> & { state: RolloutState }) => {
    const before = previous.get(`${a.targetId}\u0000${a.kind}`);
    return putStatus(s, {
      targetId: a.targetId,
      kind: a.kind,
      desiredVersion: a.version,
      appliedVersion: before?.appliedVersion ?? null,
      appliedAt: before?.appliedAt ?? null,
      message: null,
      errors: null,
      attempts: 0,
      nextRetryAt: null,
      updatedAt: now,
      ...fields,
    });
  };
  await Promise.all(
    actions.map(async (a) => {
      if (a.type === "stale") return record(a, { state: "stale", message: "target disabled" });
      const target = targets.find((t) => t.id === a.targetId)!;
      const document = (await getVersion(s, target.cluster, a.kind, a.version))?.document;
      const make = adapters[target.adapter as AdapterKind];
      const fail = (message: string) => {
        const attempts = a.attempts + 1;
        return record(a, { state: "unreachable", message, attempts, nextRetryAt: now + retryDelay(attempts, backoff) });
      };
      if (!make) return fail(`no adapter for ${target.adapter}`);
      await record(a, { state: "pending", attempts: a.attempts });
      let result: PushResult;
      try {
        result = await make(target).push(a.kind, a.version, document);
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err));
      }
      if (result.status === "applied") await record(a, { state: "in_sync", appliedVersion: a.version, appliedAt: now });
      else
        await record(a, {
          state: "rejected",
          message: describeRejection(result),
          errors: result.errors?.length ? JSON.stringify(result.errors) : null,
        });
    }),
  );
  return actions;
}

/** Run reconcileOnce now and then intervalMs after each pass ends; returns a stop function. */
export function startReconciler(
  s: Store,
  adapters: Adapters,
  intervalMs: number,
  now: () => number = Date.now,
): () => Promise<void> {
  return startPasses("reconciler", () => reconcileOnce(s, adapters, now()), intervalMs);
}
