"use client";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatDateTime, formatTime } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { Pager } from "@/components/ui/pager";
import { useCursorPages } from "@/components/ui/use-cursor-pages";
import type { PolicyKind } from "@/lib/policies/policies";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";
import { usePolicyScope } from "./cluster-scope";
import { DiffTable } from "./diff-table";
import { conflictDetails, type Conflict } from "./drafts";
import type { Operator } from "./fields";
import { GuardStatus, ImpactPanel } from "./impact-panel";

const PAGE_SIZE = 20;
const REFRESH_MS = 2_000;

/** Published versions of one kind (newest first), a diff between any two, and rollback to an earlier one. */
export function HistoryPanel({ kind, now, operator }: { kind: PolicyKind; now: number; operator: Operator }) {
  const trpc = useTRPC();
  const { cluster } = usePolicyScope();
  const pages = useCursorPages<number>(`${cluster}/${kind}`);
  const history = useQuery({
    ...trpc.policies.history.queryOptions({ cluster, kind, limit: PAGE_SIZE, before: pages.cursor ?? undefined }),
    refetchInterval: pages.page === 1 ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const items = history.data?.items ?? [];
  const newest = pages.page === 1 ? items[0]?.version : undefined;
  const [pick, setPick] = useState<{ from?: number; to?: number }>({});
  const from = pick.from ?? items[1]?.version;
  const to = pick.to ?? items[0]?.version;
  const diff = useQuery({
    ...trpc.policies.diff.queryOptions({ cluster, kind, from: from ?? 1, to: to ?? 1 }),
    enabled: from !== undefined && to !== undefined && from !== to,
  });
  const [rollback, setRollback] = useState<number | null>(null);
  const [shown, setShown] = useState<number | null>(null);
  const impactOf = shown ?? newest;

  if (history.isError)
    return (
      <LoadError
        what={`${kind} history`}
        message={history.error.message}
        stale={Boolean(history.data)}
        onRetry={() => void history.refetch()}
      />
    );
  if (history.isPending)
    return <div className="chart-skeleton skeleton" role="progressbar" aria-busy="true" aria-label="Loading history" />;
  if (items.length === 0) {
    return (
      <p className="sub" role="status">
        No {kind} version published yet.
      </p>
    );
  }
  return (
    <>
      <div className="table-wrap">
        <table className="data-table" aria-label={`${kind} versions`}>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Author</th>
              <th scope="col">Published</th>
              <th scope="col">Comment</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((v) => (
              <tr key={v.version} data-testid={`${kind}-version-${v.version}`}>
                <td>
                  v{v.version}
                  {v.version === newest && (
                    <span className="badge" data-tone="good">
                      latest
                    </span>
                  )}
                </td>
                <td>{v.author}</td>
                <td title={formatDateTime(v.createdAt)}>{formatTime(v.createdAt, now)}</td>
                <td className="policies-detail">
                  {v.comment || <span className="sub">—</span>}
                  {v.guard && <GuardStatus kind={kind} version={v.version} guard={v.guard} />}
                </td>
                <td>
                  <button
                    type="button"
                    className="button"
                    aria-pressed={impactOf === v.version}
                    onClick={() => setShown(v.version)}
                    aria-label={`Impact of v${v.version}`}
                  >
                    Impact
                  </button>
                  {newest !== undefined && v.version !== newest && operator.canEdit && (
                    <button
                      type="button"
                      className="button"
                      onClick={() => setRollback(v.version)}
                      aria-label={`Roll back to v${v.version}`}
                    >
                      Roll back
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        label={`${kind} versions`}
        page={pages.page}
        hasOlder={Boolean(history.data?.nextCursor)}
        onNewer={pages.newer}
        onOlder={() => history.data?.nextCursor && pages.older(history.data.nextCursor)}
      />
      {impactOf !== undefined && <ImpactPanel kind={kind} version={impactOf} />}
      {rollback !== null && newest !== undefined && (
        <RollbackForm kind={kind} to={rollback} base={newest} onDone={() => setRollback(null)} />
      )}

      {items.length > 1 && (
        <div className="policies-compare">
          <h3>Compare versions</h3>
          <div className="policies-actions">
            <label>
              From{" "}
              <select value={from} onChange={(e) => setPick({ from: Number(e.target.value), to })}>
                {items.map((v) => (
                  <option key={v.version} value={v.version}>
                    v{v.version}
                  </option>
                ))}
              </select>
            </label>
            <label>
              To{" "}
              <select value={to} onChange={(e) => setPick({ from, to: Number(e.target.value) })}>
                {items.map((v) => (
                  <option key={v.version} value={v.version}>
                    v{v.version}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {from === to && <p className="sub">Pick two different versions.</p>}
          {diff.isError && (
            <LoadError what="the diff" message={diff.error.message} onRetry={() => void diff.refetch()} />
          )}
          {diff.data && from !== to && <DiffTable diff={diff.data} label={`Changes from v${from} to v${to}`} />}
        </div>
      )}
    </>
  );
}

/** Confirm a rollback with a comment; publishes v`to`'s content on top of `base`, or shows what changed since. */
function RollbackForm({ kind, to, base, onDone }: { kind: PolicyKind; to: number; base: number; onDone: () => void }) {
  const trpc = useTRPC();
  const { cluster } = usePolicyScope();
  const queryClient = useQueryClient();
  const [comment, setComment] = useState("");
  const [onTop, setOnTop] = useState(base);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const mutation = useMutation(
    trpc.policies.rollback.mutationOptions({
      onSuccess: () => {
        void refreshAfterWrite(queryClient, { queryKey: trpc.policies.pathKey() });
        onDone();
      },
      onError: (err) => {
        const c = conflictDetails(err.data as never);
        if (c) {
          setConflict(c);
          void refreshAfterWrite(queryClient, { queryKey: trpc.policies.pathKey() });
        }
      },
    }),
  );
  return (
    <section className="notice policies-rollback" aria-labelledby={`${kind}-rollback-heading`}>
      <h2 id={`${kind}-rollback-heading`}>
        Roll back {kind} to v{to}
      </h2>
      <p>
        Publishes v{to}&apos;s content as v{onTop + 1} on top of v{onTop}. Targets receive it like any new version.
      </p>
      {conflict && (
        <div role="alert">
          <p className="policies-error">
            v{conflict.latest} was published since you looked at v{onTop}. Its changes:
          </p>
          <DiffTable diff={conflict.diff} label="Changes since" />
        </div>
      )}
      {mutation.isError && !conflict && (
        <p className="policies-error" role="alert">
          {mutation.error.message}
        </p>
      )}
      <label className="policies-comment" htmlFor={`${kind}-rollback-comment`}>
        Comment
        <textarea
          id={`${kind}-rollback-comment`}
          rows={2}
          maxLength={2000}
          value={comment}
          onChange={(e) => setComment(e.target.value)}
          placeholder="Why roll back"
        />
      </label>
      <div className="policies-actions">
        {conflict ? (
          <button
            type="button"
            className="button policies-primary"
            onClick={() => {
              setOnTop(conflict.latest);
              setConflict(null);
              mutation.mutate({ cluster, kind, to, baseVersion: conflict.latest, comment });
            }}
          >
            Roll back on top of v{conflict.latest}
          </button>
        ) : (
          <button
            type="button"
            className="button policies-primary"
            disabled={mutation.isPending}
            onClick={() => mutation.mutate({ cluster, kind, to, baseVersion: onTop, comment })}
          >
            {mutation.isPending ? "Rolling back…" : `Confirm rollback to v${to}`}
          </button>
        )}
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </section>
  );
}
