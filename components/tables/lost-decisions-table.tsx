import Link from "next/link";
import { formatCount, formatDecimal, formatTime } from "@/components/format";
import type { LostDecision } from "@/server/analysis/workers";

/** The latest decisions a worker lost: when, which request, who won, and both sides' overlap and cost. */
export function LostDecisionsTable({
  rows,
  rangeQuery,
  now,
}: {
  rows: LostDecision[];
  rangeQuery: string;
  now: number;
}) {
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Latest routing decisions lost">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Request</th>
            <th scope="col">Won by</th>
            <th scope="col" className="num">
              Overlap here / winner (blocks)
            </th>
            <th scope="col" className="num">
              Cost here / winner
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.ts}-${r.requestId}`}>
              <td>
                <time dateTime={new Date(r.ts).toISOString()}>{formatTime(r.ts, now)}</time>
              </td>
              <td>
                <code>{r.requestId}</code>
              </td>
              <td>
                <Link href={`/workers/${encodeURIComponent(r.winnerId)}?${rangeQuery}`}>{r.winnerId}</Link>
              </td>
              <td className="num">
                {formatCount(r.overlap)} / {formatCount(r.winnerOverlap)}
              </td>
              <td className="num">
                {formatDecimal(r.cost)} / {formatDecimal(r.winnerCost)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
