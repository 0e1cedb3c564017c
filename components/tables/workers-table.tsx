"use client";
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
} from "@tanstack/react-table";
import Link from "next/link";
import { useState } from "react";
import { formatAgo, formatCount, formatMs, formatPercent, NO_DATA } from "@/components/format";
import { StateBadges } from "@/components/ui/state-badges";
import type { WorkerRow as BaseRow } from "@/server/analysis/workers";

/** A worker's row with its decode telemetry over the range (null when it reported none). */
export type WorkerRow = BaseRow & {
  decode: {
    preemptions: number | null;
    batchTokens: number | null;
    itlP50Ms: number | null;
    itlP95Ms: number | null;
  } | null;
};

const STATE_ORDER = { up: 0, stale: 1, down: 2 } as const;
const orUndef = <T,>(v: T | null) => (v === null ? undefined : v);

/** What cells read besides their row: the range's end (for "ago") and its query string (kept on links). */
type TableMeta = { to: number; query: string };
const metaOf = (t: { options: { meta?: unknown } }) => t.options.meta as TableMeta;

// Defined once: cell renderers are components to flexRender, so a new function per render would remount every cell
// (and detach every link) on each 2-second refresh.
const COLUMNS: ColumnDef<WorkerRow>[] = [
  {
    id: "worker",
    header: "Worker",
    accessorFn: (r) => r.workerId,
    cell: ({ row: { original: r }, table }) => (
      <Link href={`/workers/${encodeURIComponent(r.workerId)}?${metaOf(table).query}`}>{r.workerId}</Link>
    ),
  },
  {
    id: "role",
    header: "Role",
    accessorFn: (r) => orUndef(r.role),
    sortUndefined: "last",
    cell: ({ row }) => row.original.role ?? "unknown",
  },
  {
    id: "state",
    header: "State",
    accessorFn: (r) => STATE_ORDER[r.state] * 4 + (r.joined ? 1 : 0) + (r.left ? 2 : 0),
    cell: ({ row: { original: r } }) => <StateBadges state={r.state} joined={r.joined} left={r.left} />,
  },
  {
    id: "kv",
    header: "KV utilization",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.kvUtilization),
    sortUndefined: "last",
    cell: ({ row }) => formatPercent(row.original.kvUtilization),
  },
  {
    id: "hitRate",
    header: "Prefix hit rate",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.hitRate),
    sortUndefined: "last",
    cell: ({ row: { original: r } }) => (
      <span data-testid={`hit-rate-${r.workerId}`} title={`${formatCount(r.queryTokens)} prompt tokens queried`}>
        {formatPercent(r.hitRate)}
      </span>
    ),
  },
  {
    id: "running",
    header: "Running",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.running),
    sortUndefined: "last",
    cell: ({ row }) => formatCount(row.original.running),
  },
  {
    id: "waiting",
    header: "Waiting",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.waiting),
    sortUndefined: "last",
    cell: ({ row }) => formatCount(row.original.waiting),
  },
  {
    id: "itl",
    header: "ITL p50 / p95",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.decode?.itlP95Ms ?? null),
    sortUndefined: "last",
    cell: ({ row: { original: r } }) =>
      `${formatMs(r.decode?.itlP50Ms ?? null)} / ${formatMs(r.decode?.itlP95Ms ?? null)}`,
  },
  {
    id: "preemptions",
    header: "Preemptions",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.decode?.preemptions ?? null),
    sortUndefined: "last",
    cell: ({ row: { original: r } }) => formatCount(r.decode?.preemptions ?? null),
  },
  {
    id: "share",
    header: "Routing share",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.routingShare),
    sortUndefined: "last",
    cell: ({ row: { original: r } }) => (
      <span title={`${formatCount(r.won)} decisions won`}>{formatPercent(r.routingShare)}</span>
    ),
  },
  {
    id: "lastSeen",
    header: "Last seen",
    meta: { num: true },
    accessorFn: (r) => orUndef(r.lastSeen),
    sortUndefined: "last",
    cell: ({ row: { original: r }, table }) =>
      r.lastSeen === null ? (
        NO_DATA
      ) : (
        <time dateTime={new Date(r.lastSeen).toISOString()}>{formatAgo(r.lastSeen, metaOf(table).to)}</time>
      ),
  },
];

const ARIA_SORT = { asc: "ascending", desc: "descending" } as const;

/** The sortable workers table; every header is a button, every worker links to its detail page (keeping the range). */
export function WorkersTable({ rows, to, rangeQuery }: { rows: WorkerRow[]; to: number; rangeQuery: string }) {
  const [sorting, setSorting] = useState<SortingState>([{ id: "worker", desc: false }]);
  const table = useReactTable({
    data: rows,
    columns: COLUMNS,
    meta: { to, query: rangeQuery } satisfies TableMeta,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (r) => r.workerId,
  });
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Workers">
        <thead>
          {table.getHeaderGroups().map((g) => (
            <tr key={g.id}>
              {g.headers.map((h) => {
                const sorted = h.column.getIsSorted();
                const num = (h.column.columnDef.meta as { num?: boolean } | undefined)?.num;
                return (
                  <th
                    key={h.id}
                    className={num ? "num" : undefined}
                    aria-sort={sorted ? ARIA_SORT[sorted] : "none"}
                    scope="col"
                  >
                    <button type="button" className="sort" onClick={h.column.getToggleSortingHandler()}>
                      {flexRender(h.column.columnDef.header, h.getContext())}
                      <span className="sort-mark" aria-hidden="true">
                        {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((c) => (
                <td
                  key={c.id}
                  className={(c.column.columnDef.meta as { num?: boolean } | undefined)?.num ? "num" : undefined}
                >
                  {flexRender(c.column.columnDef.cell, c.getContext())}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
