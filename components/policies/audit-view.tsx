"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { DEFAULT_CLUSTER } from "@/lib/cluster-name";
import { scopeLabel, scopeProblem } from "@/lib/policy-scope";
import { formatDateTime, formatTime } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { Pager } from "@/components/ui/pager";
import { useCursorPages } from "@/components/ui/use-cursor-pages";
import { describeAudit } from "./audit";
import "@/components/ui/cluster-views.css";
import "@/components/ui/decisions.css";

const PAGE_SIZE = 50;
const REFRESH_MS = 5_000;

/** /policies/audit: every control-plane change, newest first, paged by cursor. */
export function AuditView() {
  const trpc = useTRPC();
  const asked = useSearchParams().get("cluster");
  // A malformed ?cluster= shows every cluster's changes rather than an error: it only narrows a read.
  const cluster = asked !== null && scopeProblem(asked) === null ? asked : undefined;
  const pages = useCursorPages<number>(`audit/${cluster ?? ""}`);
  const audit = useQuery({
    ...trpc.policies.audit.queryOptions({ cluster, limit: PAGE_SIZE, before: pages.cursor ?? undefined }),
    refetchInterval: pages.page === 1 ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const now = audit.dataUpdatedAt;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Policy audit log</h1>
          <div className="sub">
            Every publish, rollback and target change{cluster ? ` of ${scopeLabel(cluster)}` : " of every cluster"},
            newest first. {cluster && <Link href="/policies/audit">Show every cluster</Link>}
          </div>
        </div>
        <Link href={cluster ? `/policies?cluster=${encodeURIComponent(cluster)}` : "/policies"}>← Policies</Link>
      </div>
      {audit.isError && (
        <LoadError
          what="the audit log"
          message={audit.error.message}
          stale={Boolean(audit.data)}
          onRetry={() => void audit.refetch()}
        />
      )}
      {audit.isPending && (
        <div
          className="chart-skeleton skeleton"
          role="progressbar"
          aria-busy="true"
          aria-label="Loading the audit log"
        />
      )}
      {audit.data && audit.data.items.length === 0 && (
        <p className="chart-empty card" role="status">
          No control-plane changes yet. Publishing a policy or registering a target is recorded here.
        </p>
      )}
      {audit.data && audit.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="data-table" aria-label="Audit log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Cluster</th>
                <th scope="col">Kind</th>
                <th scope="col">Version</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.items.map((e) => (
                <tr key={e.id}>
                  <td title={formatDateTime(e.ts)}>{formatTime(e.ts, now)}</td>
                  <td>{e.actor}</td>
                  <td>{e.action}</td>
                  <td>{e.cluster ?? <span className="sub">—</span>}</td>
                  <td>
                    {e.kind ? (
                      <Link
                        href={`/policies?kind=${e.kind}&cluster=${encodeURIComponent(e.cluster ?? DEFAULT_CLUSTER)}`}
                      >
                        {e.kind}
                      </Link>
                    ) : (
                      <span className="sub">—</span>
                    )}
                  </td>
                  <td>{e.version === null ? <span className="sub">—</span> : `v${e.version}`}</td>
                  <td className="policies-detail">{describeAudit(e.action, e.detail)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        label="Audit log"
        page={pages.page}
        hasOlder={Boolean(audit.data?.nextCursor)}
        onNewer={pages.newer}
        onOlder={() => audit.data?.nextCursor && pages.older(audit.data.nextCursor)}
      />
    </>
  );
}
