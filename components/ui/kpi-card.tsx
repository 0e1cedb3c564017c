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
      <div className={loading ? "kpi-value skeleton" : "kpi-value"} data-testid={id}>
        {loading ? "0000" : value}
      </div>
      {note && <div className="kpi-note">{note}</div>}
      {trend}
    </section>
  );
}
