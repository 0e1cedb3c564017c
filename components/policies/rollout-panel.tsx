"use client";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { formatAgo, formatDateTime, NO_DATA } from "@/components/format";
import { usePolicyScope } from "./cluster-scope";

export type RolloutEntry = inferRouterOutputs<AppRouter>["policies"]["rollout"][number];

const STATE: Record<RolloutEntry["state"], { label: string; tone: string }> = {
  in_sync: { label: "in sync", tone: "good" },
  pending: { label: "pending", tone: "info" },
  stale: { label: "stale", tone: "warn" },
  rejected: { label: "rejected", tone: "bad" },
  unreachable: { label: "unreachable", tone: "bad" },
};

/** Where each of the cluster's targets stands on the current kind's latest version; times relative to `now`. */
export function RolloutPanel({
  entries,
  now,
  published,
  targets,
}: {
  entries: RolloutEntry[];
  now: number;
  published: boolean;
  targets: number;
}) {
  const { cluster } = usePolicyScope();
  if (!published) {
    return (
      <p className="sub" role="status">
        Nothing to roll out until a first version is published.
      </p>
    );
  }
  if (entries.length === 0) {
    return (
      <p className="sub" role="status">
        {targets === 0
          ? `No push target belongs to cluster ${cluster}, so this policy reaches no cluster yet. Add one on the Sources page.`
          : "No target receives this kind of policy."}
      </p>
    );
  }
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Rollout status">
        <thead>
          <tr>
            <th scope="col">Target</th>
            <th scope="col">State</th>
            <th scope="col" className="num">
              Applied
            </th>
            <th scope="col">Since</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.targetId} data-testid={`rollout-${e.targetId}`}>
              <td>
                {e.targetName}
                {!e.enabled && <span className="sub"> (disabled)</span>}
              </td>
              <td>
                <span className="badge" data-tone={STATE[e.state].tone}>
                  {STATE[e.state].label}
                </span>
              </td>
              <td className="num">
                {e.appliedVersion === null ? "none" : `v${e.appliedVersion}`}
                {e.appliedVersion !== e.latestVersion && <span className="sub"> of v{e.latestVersion}</span>}
              </td>
              <td title={e.appliedAt ? formatDateTime(e.appliedAt) : undefined}>
                {e.appliedAt ? formatAgo(e.appliedAt, now) : NO_DATA}
              </td>
              <td className="policies-detail">
                {e.message && <div>{e.message}</div>}
                {e.errors
                  .filter((err) => !e.message?.includes(err.message))
                  .map((err, i) => (
                    <div key={i} className="policies-error">
                      <code>{err.path || "(document)"}</code>: {err.message}
                    </div>
                  ))}
                {e.state === "unreachable" && e.nextRetryAt && (
                  <div className="sub">
                    {e.attempts} attempt{e.attempts === 1 ? "" : "s"} · next retry{" "}
                    {e.nextRetryAt - now < 2_000 ? "now" : formatAgo(e.nextRetryAt, now)}
                  </div>
                )}
                {!e.message && e.errors.length === 0 && e.state !== "unreachable" && <span className="sub">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
