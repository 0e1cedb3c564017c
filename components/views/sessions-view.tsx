"use client";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { SessionsTable } from "@/components/tables/sessions-table";
import { LoadError } from "@/components/ui/load-error";
import { Pager } from "@/components/ui/pager";
import { sessionsCsv } from "@/components/ui/sessions-csv";
import {
  parseSessionQuery,
  sessionQueryString,
  type SessionFilters,
  type SessionSort,
} from "@/components/ui/session-query";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { ScopePicker } from "@/components/ui/scope-picker";
import { useScope } from "@/components/ui/use-scope";
import { describeScope, parseScope, scopeQuery } from "@/lib/scope";
import { useCursorPages } from "@/components/ui/use-cursor-pages";
import { useRange } from "@/components/ui/use-range";
import type { SessionRow, SortKey } from "@/db/store/session-list";
import { rangeQuery } from "@/lib/time-range";
import "@/components/ui/cluster-views.css";
import "@/components/ui/sessions.css";

const PAGE_SIZE = 50;
const TYPED = ["search", "minTurns", "minHit", "maxHit", "workerId"] as const;
type Typed = (typeof TYPED)[number];
type Filters = SessionFilters;
const pickTyped = (f: Filters): Pick<Filters, Typed> => ({
  search: f.search,
  minTurns: f.minTurns,
  minHit: f.minHit,
  maxHit: f.maxHit,
  workerId: f.workerId,
});
const pct = (s: string) => (s === "" ? null : Math.min(1, Math.max(0, Number(s) / 100)));
/** The list procedure's filter and sort for these form values. */
const listFilter = (f: Filters, sort: SessionSort) => ({
  harness: f.harness || null,
  sessionType: f.sessionType || null,
  status: f.status || null,
  minTurns: f.minTurns ? Number(f.minTurns) : null,
  minHit: pct(f.minHit),
  maxHit: pct(f.maxHit),
  hasSubagents: f.subagents === "" ? null : f.subagents === "yes",
  workerId: f.workerId || null,
  search: f.search.trim() || null,
  sort: sort.key,
  dir: sort.dir,
});

/** /sessions: agent sessions with their cache outcome and miss causes; filter, sort, page, export CSV. */
export function SessionsView() {
  const [range, setRange] = useRange();
  const [scope, setScope, scopeProblem] = useScope();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const { filters: f, sort } = useMemo(() => parseSessionQuery(params), [params]);
  // Menus and sort push a history entry (back undoes them); each keystroke in a typed field replaces the current
  // entry through the native history API (no navigation, so nothing can land after a link click). Typed text is
  // kept locally so a keystroke never waits on the URL, and follows the URL when back/forward changes it.
  const [typed, setTyped] = useState<Pick<Filters, Typed>>(() => pickTyped(f));
  useEffect(() => {
    const onPop = () => setTyped(pickTyped(parseSessionQuery(new URLSearchParams(window.location.search)).filters));
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  /** The URL now (the native history API may be ahead of useSearchParams for a moment). */
  const now = () => parseSessionQuery(new URLSearchParams(window.location.search));
  const go = (change: Partial<Filters>, nextSort: SessionSort | null, push: boolean) => {
    const cur = now();
    const url = `${pathname}?${sessionQueryString(window.location.search, { ...cur.filters, ...change }, nextSort ?? cur.sort)}`;
    if (push) router.push(url, { scroll: false });
    else window.history.replaceState(null, "", url);
  };
  const shown: Filters = { ...f, ...typed };
  const filter = listFilter(f, sort);
  const pages = useCursorPages<{ v: number | string; id: string }>(
    `${rangeQuery(range)}|${scopeQuery(scope)}|${JSON.stringify(f)}|${sort.key}|${sort.dir}`,
  );
  const live = "preset" in range;
  const list = useQuery({
    ...trpc.sessions.list.queryOptions({ range, ...scope, ...filter, cursor: pages.cursor, limit: PAGE_SIZE }),
    refetchInterval: live && pages.page === 1 ? 3_000 : false,
    placeholderData: keepPreviousData,
  });
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => {
    const isTyped = (TYPED as readonly string[]).includes(k);
    if (isTyped) setTyped((t) => ({ ...t, [k]: e.target.value }));
    go({ [k]: e.target.value }, null, !isTyped);
  };
  const onSort = (key: SortKey) => go({}, { key, dir: sort.key === key && sort.dir === "desc" ? "asc" : "desc" }, true);
  // The export reads the URL as it is at the click, even if the list has not caught up with the last keystroke.
  const exportCsv = async () => {
    const cur = now();
    const input = {
      range,
      ...parseScope(new URLSearchParams(window.location.search)).scope,
      ...listFilter(cur.filters, cur.sort),
    };
    const rows: SessionRow[] = [];
    let cursor: { v: number | string; id: string } | null = null;
    for (let i = 0; i < 20; i++) {
      const page: { items: SessionRow[]; nextCursor: { v: number | string; id: string } | null } = await qc.fetchQuery(
        trpc.sessions.list.queryOptions({ ...input, cursor, limit: 500 }),
      );
      rows.push(...page.items);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const url = URL.createObjectURL(new Blob([sessionsCsv(rows)], { type: "text/csv" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: "sessions.csv" });
    a.click();
    URL.revokeObjectURL(url);
  };
  const facets = list.data?.facets;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Sessions</h1>
          <div className="sub">Agent sessions turn by turn: what was cached, what was recomputed and why.</div>
        </div>
        <div className="page-controls">
          <ScopePicker value={scope} onChange={setScope} />
          <TimeRangePicker value={range} onChange={setRange} />
        </div>
      </div>
      {scopeProblem && (
        <p role="alert" className="notice">
          {scopeProblem}; showing {describeScope(scope)}.
        </p>
      )}
      <form className="filters" role="search" aria-label="Filter sessions" onSubmit={(e) => e.preventDefault()}>
        <label>
          Session id
          <input type="search" value={shown.search} onChange={set("search")} placeholder="contains…" />
        </label>
        <label>
          Harness
          <select value={shown.harness} onChange={set("harness")}>
            <option value="">any</option>
            {facets?.harnesses.map((h) => (
              <option key={h}>{h}</option>
            ))}
          </select>
        </label>
        <label>
          Session type
          <select value={shown.sessionType} onChange={set("sessionType")}>
            <option value="">any</option>
            {facets?.sessionTypes.map((h) => (
              <option key={h}>{h}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={shown.status} onChange={set("status")}>
            <option value="">any</option>
            <option value="active">active</option>
            <option value="ended">ended</option>
            <option value="error">with errors</option>
          </select>
        </label>
        <label>
          Min turns
          <input type="number" min={0} value={shown.minTurns} onChange={set("minTurns")} />
        </label>
        <label>
          Cached ≥ %
          <input type="number" min={0} max={100} value={shown.minHit} onChange={set("minHit")} />
        </label>
        <label>
          Cached ≤ %
          <input type="number" min={0} max={100} value={shown.maxHit} onChange={set("maxHit")} />
        </label>
        <label>
          Subagents
          <select value={shown.subagents} onChange={set("subagents")}>
            <option value="">any</option>
            <option value="yes">with subagents</option>
            <option value="no">without</option>
          </select>
        </label>
        <label>
          Worker
          <input value={shown.workerId} onChange={set("workerId")} placeholder="worker id" />
        </label>
        <button type="button" className="button" onClick={() => void exportCsv()}>
          Export CSV
        </button>
      </form>
      {list.isError && (
        <LoadError
          what="sessions"
          message={list.error.message}
          stale={Boolean(list.data)}
          onRetry={() => void list.refetch()}
        />
      )}
      {list.isPending && (
        <div className="chart-skeleton skeleton" role="progressbar" aria-busy="true" aria-label="Loading sessions" />
      )}
      {list.data && list.data.items.length === 0 && (
        <p className="chart-empty" role="status">
          No sessions match in this range.
        </p>
      )}
      {list.data && list.data.items.length > 0 && (
        <SessionsTable rows={list.data.items} sort={sort.key} dir={sort.dir} onSort={onSort} />
      )}
      <Pager
        label="Sessions"
        page={pages.page}
        hasOlder={Boolean(list.data?.nextCursor)}
        onNewer={pages.newer}
        onOlder={() => list.data?.nextCursor && pages.older(list.data.nextCursor)}
      />
    </>
  );
}
