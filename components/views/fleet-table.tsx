"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { scopeQuery } from "@/lib/scope";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatCount, formatMsPair, formatPercent, formatRange, formatRate, NO_DATA } from "@/components/format";
import { LoadError } from "@/components/ui/load-error";
import type { RangeSpec } from "@/lib/time-range";
import "@/components/ui/cluster-views.css";

/**
 * The overview's fleet table: one row per cluster and model, each figure that model's own. Shown once the telemetry
 * names more than one cluster or model: a single one is the KPI cards above.
 */
export function FleetTable({ range, refetchInterval }: { range: RangeSpec; refetchInterval: number | false }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.overview.fleet.queryOptions(range),
    refetchInterval,
    placeholderData: keepPreviousData,
  });
  // Read apart (three queries per row): the figures do not wait for them.
  const f = useQuery({
    ...trpc.overview.fleetFindings.queryOptions(range),
    refetchInterval,
    placeholderData: keepPreviousData,
  });
  const findings = new Map((f.data?.rows ?? []).map((r) => [`${r.cluster}/${r.model ?? ""}`, r]));
  if (q.isError && !q.data)
    return <LoadError what="the fleet table" message={q.error.message} onRetry={() => void q.refetch()} />;
  const d = q.data;
  if (!d) return null;
  const fleet = d.rows.length > 1 || d.rows.some((r) => r.cluster !== "default");
  if (!fleet) return null;
  return (
    <section className="section" aria-labelledby="fleet-heading" data-testid="fleet">
      <h2 id="fleet-heading">Fleet</h2>
      <p className="sub">
        Per cluster and model{d.clipped ? `, over the range's last hour (${formatRange(d.from, d.to)})` : ""}. No figure
        is summed or averaged across models: a hit rate or a latency of one model says nothing of another&apos;s. Hit
        rate is the requests&apos; cached input tokens over their input tokens; KV and workers are each worker&apos;s
        latest sample in the last minute.
        {d.ttftsCut && " TTFT is read from the first 200,000 timed requests of the window."}
      </p>
      <div className="table-wrap">
        <table className="data-table" aria-label="Fleet by cluster and model">
          <thead>
            <tr>
              <th scope="col">Cluster</th>
              <th scope="col">Model</th>
              <th scope="col" className="num">
                Requests / s
              </th>
              <th scope="col" className="num">
                TTFT p50 / p95
              </th>
              <th scope="col" className="num">
                Prefix hit rate
              </th>
              <th scope="col" className="num">
                KV utilization
              </th>
              <th scope="col" className="num">
                Workers
              </th>
              <th scope="col">Findings</th>
              <th scope="col">
                <span className="visually-hidden">Links</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {d.rows.map((r) => (
              <tr key={`${r.cluster}/${r.model ?? ""}`} data-testid={`fleet-${r.cluster}-${r.model ?? "none"}`}>
                <th scope="row">{r.cluster}</th>
                <td>{r.model ?? <span className="sub">not reported</span>}</td>
                <td className="num">{formatRate(r.requestsPerSecond)}</td>
                <td className="num">{formatMsPair(r.ttftP50Ms, r.ttftP95Ms)}</td>
                <td className="num">{formatPercent(r.hitRate)}</td>
                <td className="num">{formatPercent(r.kvUtilization)}</td>
                <td className="num">{r.workers ? formatCount(r.workers) : NO_DATA}</td>
                <td data-testid={`fleet-findings-${r.cluster}-${r.model ?? "none"}`}>
                  <FindingsCell
                    row={findings.get(`${r.cluster}/${r.model ?? ""}`)}
                    pending={f.isPending}
                    failed={f.isError}
                    href={`/?${scopeQuery({ cluster: r.cluster, ...(r.model ? { model: r.model } : {}) })}#findings-heading`}
                  />
                </td>
                <td>
                  {/* A flex box inside the cell: a flex cell itself drops out of the row's height and borders. */}
                  <span className="fleet-links">
                    <Link
                      href={`/workers?${scopeQuery({ cluster: r.cluster, ...(r.model ? { model: r.model } : {}) })}`}
                    >
                      Workers
                    </Link>
                    <Link href={`/policies?cluster=${encodeURIComponent(r.cluster)}`}>Policies</Link>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

type FindingsRow = { unstablePrefix: { sessionsAffected: number } | null; toolWaitSurvivedShare: number | null };

/** One row's findings: an unstable prompt prefix (linked to the scope's findings), and KV kept over tool waits. */
function FindingsCell(props: { row: FindingsRow | undefined; pending: boolean; failed: boolean; href: string }) {
  const { row, pending, failed, href } = props;
  if (failed) return <span className="sub">not loaded</span>;
  if (!row) return <span className="sub">{pending ? "…" : NO_DATA}</span>;
  const parts = [];
  if (row.unstablePrefix)
    parts.push(
      <Link key="prefix" href={href}>
        unstable prefix ({formatCount(row.unstablePrefix.sessionsAffected)} sessions)
      </Link>,
    );
  if (row.toolWaitSurvivedShare !== null)
    parts.push(
      <span key="wait" className="sub">
        {formatPercent(row.toolWaitSurvivedShare)} of KV kept over tool waits
      </span>,
    );
  if (!parts.length) return <span className="sub">none</span>;
  return <span className="fleet-findings">{parts}</span>;
}
