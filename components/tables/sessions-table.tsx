"use client";
import Link from "next/link";
import { useState } from "react";
import { formatCount, formatMs, formatPercent, formatTime, NO_DATA } from "@/components/format";
import { causesOf } from "@/components/charts/prepare/causes";
import { CauseBar } from "@/components/ui/cause-bar";
import type { SessionRow, SortKey } from "@/db/store/session-list";

const COLS: { key: SortKey | null; label: string }[] = [
  { key: "sessionId", label: "Session" },
  { key: null, label: "Harness" },
  { key: "agents", label: "Agents" },
  { key: "turns", label: "Turns" },
  { key: "inputTokens", label: "Prompt tokens" },
  { key: "cachedShare", label: "Cached" },
  { key: "recomputed", label: "Recomputed by cause" },
  { key: "ttftP50", label: "TTFT p50" },
  { key: "toolWaitMs", label: "Tool wait" },
  { key: "duration", label: "Duration" },
  { key: "lastAt", label: "Last activity" },
];

/** The sessions list; column headers sort (aria-sort says how). */
export function SessionsTable({
  rows,
  sort,
  dir,
  onSort,
}: {
  rows: SessionRow[];
  sort: SortKey;
  dir: "asc" | "desc";
  onSort: (k: SortKey) => void;
}) {
  const [now] = useState(() => Date.now());
  return (
    <div className="table-scroll">
      <table className="sessions-table" aria-label="Sessions">
        <thead>
          <tr>
            {COLS.map((c) => (
              <th
                key={c.label}
                scope="col"
                aria-sort={c.key === sort ? (dir === "asc" ? "ascending" : "descending") : undefined}
              >
                {c.key ? (
                  <button type="button" onClick={() => onSort(c.key!)}>
                    {c.label}
                    {c.key === sort ? (dir === "asc" ? " ▲" : " ▼") : ""}
                  </button>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const causes = causesOf(r);
            const recomputed = r.cold + r.diverged + r.evicted + r.routedAway + r.unknown;
            return (
              <tr key={r.sessionId}>
                <td>
                  <Link href={`/sessions/${encodeURIComponent(r.sessionId)}`}>{r.sessionId}</Link>
                  {r.errors > 0 && <span className="tag">errors</span>}
                </td>
                <td className="text">
                  {r.harness ?? NO_DATA}
                  {r.sessionType ? ` · ${r.sessionType}` : ""}
                </td>
                <td>{r.subagents > 0 ? `1 + ${r.subagents}` : "1"}</td>
                <td>{formatCount(r.turns)}</td>
                <td>{formatCount(r.inputTokens)}</td>
                <td>{formatPercent(r.cachedShare)}</td>
                <td>
                  <CauseBar causes={causes} /> {formatCount(recomputed)}
                </td>
                <td>{formatMs(r.ttftP50)}</td>
                <td>{formatMs(r.toolWaitMs)}</td>
                <td>{formatMs(r.duration)}</td>
                <td>{formatTime(r.lastAt, now)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
