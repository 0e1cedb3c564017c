import type { ReactNode } from "react";

/** A titled chart panel with its loading and empty states (an empty chart says why instead of drawing zeros). */
export function ChartFrame({
  title,
  note,
  loading,
  empty,
  emptyText,
  children,
}: {
  title: string;
  note?: ReactNode;
  loading: boolean;
  empty: boolean;
  emptyText: string;
  children: ReactNode;
}) {
  return (
    <section className="chart-card" aria-label={title} aria-busy={loading || undefined}>
      <h3>{title}</h3>
      {note && <p className="sub chart-note">{note}</p>}
      {loading ? (
        <div className="chart-skeleton skeleton" />
      ) : empty ? (
        <div className="chart-empty">{emptyText}</div>
      ) : (
        children
      )}
    </section>
  );
}
