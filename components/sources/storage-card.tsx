"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { formatBytes, formatDateTime } from "@/components/format";

const REFRESH_MS = 30_000;

/**
 * The database's size on disk beside the dashboard process's memory (RSS against its budget, each thread's heap
 * against its limit), and the oldest data kept per kind, with each kind's retention.
 */
export function StorageCard() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.sources.storage.queryOptions(), refetchInterval: REFRESH_MS });
  const d = q.data;
  return (
    <section className="section" aria-labelledby="storage-title" data-testid="storage-card">
      <h2 id="storage-title">Storage</h2>
      {q.isError && (
        <LoadError
          what="the storage figures"
          message={q.error.message}
          stale={Boolean(d)}
          onRetry={() => void q.refetch()}
        />
      )}
      {q.isPending && <p aria-busy="true">loading</p>}
      {d && (
        <>
          <p data-testid="database-size">
            Database size: <strong>{formatBytes(d.totalBytes)}</strong> (file {formatBytes(d.fileBytes)} + write-ahead
            log {formatBytes(d.walBytes)})
          </p>
          <p data-testid="process-memory">
            Dashboard memory: <strong>{formatBytes(d.memory.rssBytes)}</strong> resident (budget{" "}
            {formatBytes(d.memory.budgetBytes)})
            {d.memory.rssBytes > d.memory.budgetBytes && <span className="over-budget"> over budget</span>}
          </p>
          <div className="table-wrap">
            <table className="data-table" aria-label="Heap per thread">
              <thead>
                <tr>
                  <th scope="col">Thread</th>
                  <th scope="col">Heap used</th>
                  <th scope="col">Heap limit</th>
                </tr>
              </thead>
              <tbody>
                {d.memory.threads.map((t) => (
                  <tr key={t.thread}>
                    <th scope="row">{t.thread}</th>
                    <td>{formatBytes(t.heapUsedBytes)}</td>
                    <td>{formatBytes(t.heapLimitBytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="table-wrap">
            <table className="data-table" aria-label="Oldest data kept">
              <thead>
                <tr>
                  <th scope="col">Data</th>
                  <th scope="col">Oldest kept</th>
                  <th scope="col">Kept for</th>
                </tr>
              </thead>
              <tbody>
                {d.kinds.map((k) => (
                  <tr key={k.table}>
                    <th scope="row">{k.label}</th>
                    <td>{k.oldest === null ? "none" : formatDateTime(k.oldest)}</td>
                    <td>{k.keptFor}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
