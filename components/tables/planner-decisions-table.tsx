import type { inferRouterOutputs } from "@trpc/server";
import { actionStyle, formatRawMetric } from "@/components/charts/prepare/planner";
import { formatTime } from "@/components/format";
import type { AppRouter } from "@/server/trpc/root";

export type PlannerDecision = inferRouterOutputs<AppRouter>["planner"]["list"]["items"][number];

/** Planner decisions, newest first: what it did, what it observed against which thresholds, and its reason. */
export function PlannerDecisionsTable({ items, now }: { items: PlannerDecision[]; now: number }) {
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Planner decisions">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Role</th>
            <th scope="col">Action</th>
            <th scope="col" className="num">
              Replicas
            </th>
            <th scope="col" className="num">
              Observed
            </th>
            <th scope="col" className="num">
              Thresholds (down / up)
            </th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => {
            const a = actionStyle(d.action);
            return (
              <tr key={d.id} data-testid={`planner-${d.id}`}>
                <td>{formatTime(d.ts, now)}</td>
                <td>{d.role}</td>
                <td>
                  {a.tone ? (
                    <span className="badge" data-tone={a.tone}>
                      {a.label}
                    </span>
                  ) : (
                    <span className="sub">{a.label}</span>
                  )}
                </td>
                <td className="num">
                  {d.replicasBefore === d.replicasAfter ? d.replicasAfter : `${d.replicasBefore} → ${d.replicasAfter}`}
                </td>
                <td className="num">{formatRawMetric(d.metric, d.observed)}</td>
                <td className="num">
                  {formatRawMetric(d.metric, d.scaleDownThreshold)} / {formatRawMetric(d.metric, d.scaleUpThreshold)}
                </td>
                <td className="reason">{d.reason}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
