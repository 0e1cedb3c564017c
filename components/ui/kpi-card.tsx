import type { ReactNode } from "react";

export function KpiCard({
  id,
  label,
  value,
  note,
  loading,
  trend,
}: {
  id: string;
  label: string;
  value: string;
  note?: string;
  loading?: boolean;
  trend?: ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={`${id}-label`} aria-busy={loading || undefined}>
      <div className="kpi-label" id={`${id}-label`}>
        {label}
      </div>
      {/* The placeholder holds no text: transparent text would be a contrast failure to a checker, and noise to a reader. */}
      <div className="kpi-value" data-testid={id}>
        {loading ? <span className="skeleton kpi-skeleton" /> : value}
      </div>
      {note && <div className="kpi-note">{note}</div>}
      {trend}
    </section>
  );
}
