"use client";
import { memo, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import { causeText } from "@/components/charts/prepare/causes";
import { formatCount, formatDecimal, formatMs, NO_DATA } from "@/components/format";
import { turnWindow } from "@/components/tables/turn-window";
import { CauseBar } from "@/components/ui/cause-bar";
import { onboardedText } from "@/components/charts/prepare/tiers";
import type { Lane, Turn } from "@/server/analysis/session-assembly";

/** Row height (px) the window is computed with; the CSS holds rows to it. */
export const ROW_H = 34;
const VIEWPORT_H = 520;
const OVERSCAN = 8;
const PAGE = Math.floor(VIEWPORT_H / ROW_H) - 1;

export type TurnEntry = { t: Turn; lane: Pick<Lane, "role" | "trajectoryId"> };

const TurnRow = memo(function TurnRow({
  entry,
  index,
  selected,
  onSelect,
}: {
  entry: TurnEntry;
  index: number;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  const { t, lane } = entry;
  return (
    <tr
      id={`turn-${index}`}
      className="turn-row"
      tabIndex={0}
      aria-rowindex={index + 2}
      aria-selected={selected}
      onClick={() => onSelect(t.id)}
      onKeyDown={(e) => e.key === "Enter" && onSelect(t.id)}
      style={{ height: ROW_H }}
    >
      <td>{t.requestId}</td>
      <td className="text">{lane.role === "main" ? "main" : `sub ${lane.trajectoryId}`}</td>
      <td>{formatCount(t.inputTokens)}</td>
      <td>{formatCount(t.cachedTokens)}</td>
      <td>{formatCount(t.outputTokens)}</td>
      <td>{formatCount(t.reasoningTokens)}</td>
      <td>{formatMs(t.ttft)}</td>
      <td>{t.workerId ?? NO_DATA}</td>
      <td>
        {t.runnerUp
          ? `${t.runnerUp.workerId} (cost ${formatDecimal(t.runnerUp.cost)}${t.chosen ? ` vs ${formatDecimal(t.chosen.cost)}` : ""})`
          : NO_DATA}
      </td>
      <td className="text">
        {t.policyVersions
          ? Object.entries(t.policyVersions)
              .map(([k, v]) => `${k[0]}${v}`)
              .join(" ")
          : NO_DATA}
      </td>
      <td className="text">
        {t.causes ? (
          <>
            <CauseBar causes={t.causes} /> {causeText(t.causes)}
            {onboardedText(t.cachedFrom) && <span className="muted"> · {onboardedText(t.cachedFrom)}</span>}
          </>
        ) : (
          "pending"
        )}
      </td>
    </tr>
  );
});

/**
 * Every turn of the session in arrival order, windowed: only the rows in view (plus a margin) are in the DOM, and a
 * row re-renders only when its own selection changes. ↑ ↓ PageUp PageDown Home End move the selection and focus;
 * the table's aria-rowcount and each row's aria-rowindex give assistive technology the full size.
 */
export function TurnsTable({
  rows,
  selected,
  onSelect,
}: {
  rows: TurnEntry[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const focusNext = useRef<number | null>(null);
  const selectedIndex = selected === null ? -1 : rows.findIndex((r) => r.t.id === selected);
  const win = turnWindow(rows.length, scrollTop, VIEWPORT_H, ROW_H, OVERSCAN);

  useLayoutEffect(() => {
    const i = focusNext.current;
    if (i === null) return;
    focusNext.current = null;
    (document.getElementById(`turn-${i}`) as HTMLElement | null)?.focus({ preventScroll: true });
  });

  const moveTo = (i: number) => {
    const el = scroller.current;
    const next = rows[i];
    if (!el || !next) return;
    const top = i * ROW_H;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_H > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_H - el.clientHeight;
    focusNext.current = i;
    setScrollTop(el.scrollTop);
    onSelect(next.t.id);
  };
  const onKey = (e: KeyboardEvent<HTMLTableSectionElement>) => {
    const at = Math.max(0, selectedIndex);
    const to: Record<string, number> = {
      ArrowDown: selectedIndex + 1,
      ArrowUp: selectedIndex - 1,
      PageDown: at + PAGE,
      PageUp: at - PAGE,
      Home: 0,
      End: rows.length - 1,
    };
    if (!(e.key in to)) return;
    e.preventDefault();
    moveTo(Math.min(rows.length - 1, Math.max(0, to[e.key]!)));
  };

  return (
    <div
      className="table-scroll turn-list"
      ref={scroller}
      style={{ maxHeight: VIEWPORT_H }}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      <table className="sessions-table" aria-label="Turns" aria-rowcount={rows.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Turn</th>
            <th scope="col">Agent</th>
            <th scope="col">Input</th>
            <th scope="col">Cached</th>
            <th scope="col">Output</th>
            <th scope="col">Reasoning</th>
            <th scope="col">TTFT</th>
            <th scope="col">Worker</th>
            <th scope="col">Runner-up</th>
            <th scope="col">Policies</th>
            <th scope="col">Miss causes</th>
          </tr>
        </thead>
        <tbody onKeyDown={onKey}>
          {win.before > 0 && <tr aria-hidden="true" style={{ height: win.before * ROW_H }} />}
          {rows.slice(win.start, win.end).map((entry, k) => {
            const i = win.start + k;
            return (
              <TurnRow key={entry.t.id} entry={entry} index={i} selected={i === selectedIndex} onSelect={onSelect} />
            );
          })}
          {win.after > 0 && <tr aria-hidden="true" style={{ height: win.after * ROW_H }} />}
        </tbody>
      </table>
    </div>
  );
}
