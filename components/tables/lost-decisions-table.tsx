import Link from "next/link";
import { formatCount } from "@/components/charts/prepare/format";
import type { LostDecision } from "@/server/analysis/workers";

const cost = (v: number | null) => (v === null ? "—" : v.toFixed(1));

/** The latest decisions a worker lost: when, which request, who won, and both sides' overlap and cost. */
export function LostDecisionsTable({ rows, rangeQuery }: { rows: LostDecision[]; rangeQuery: string }) {
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Latest routing decisions lost">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Request</th>
            <th scope="col">Won by</th>
            <th scope="col" className="num">Overlap here / winner (blocks)</th>
            <th scope="col" className="num">Cost here / winner</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.ts}-${r.requestId}`}>
              <td>
                <time dateTime={new Date(r.ts).toISOString()}>{new Date(r.ts).toLocaleTimeString()}</time>
              </td>
              <td>
                <code>{r.requestId}</code>
              </td>
              <td>
                <Link href={`/workers/${encodeURIComponent(r.winnerId)}?${rangeQuery}`}>{r.winnerId}</Link>
              </td>
              <td className="num">
                {formatCount(r.overlap)} / {r.winnerOverlap === null ? "—" : formatCount(r.winnerOverlap)}
              </td>
              <td className="num">
                {cost(r.cost)} / {cost(r.winnerCost)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
