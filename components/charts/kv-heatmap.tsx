"use client";
import Link from "next/link";
import {
  heatColor,
  heatmapRows,
  heatmapTicks,
  NO_DATA_COLOR,
  type Series,
  type Window,
} from "@/components/charts/prepare/workers";

type Marks = Map<string, { joined: boolean; left: boolean }>;

/** Worker × time grid of KV utilization; hatched cells had no samples. Joined/left workers are marked beside their name. */
export function KvHeatmap({
  series,
  window,
  marks,
  rangeQuery,
}: {
  series: Series[];
  window: Window;
  marks: Marks;
  rangeQuery: string;
}) {
  const rows = heatmapRows(series, window);
  const ticks = heatmapTicks(window);
  const n = rows[0]?.cells.length ?? 1;
  const cols = { gridTemplateColumns: `repeat(${n}, minmax(2px, 1fr))` };
  return (
    <figure
      className="heatmap"
      style={{ margin: 0 }}
      aria-label={`KV utilization heatmap: ${rows.length} workers × ${n} time buckets`}
    >
      {rows.map((r) => {
        const m = marks.get(r.workerId);
        return (
          <div key={r.workerId} className="heat-row">
            <span className="heat-label">
              <Link href={`/workers/${encodeURIComponent(r.workerId)}?${rangeQuery}`}>{r.workerId}</Link>
              {m?.joined && <span title="joined during the range"> ↑</span>}
              {m?.left && <span title="left during the range"> ↓</span>}
            </span>
            <div className="heat-cells" style={cols} role="img" aria-label={`${r.workerId} KV utilization over time`}>
              {r.cells.map((c) => (
                <span key={c.t} title={c.label} style={{ background: c.color }} />
              ))}
            </div>
          </div>
        );
      })}
      <div className="heat-axis" aria-hidden="true">
        <span />
        <div className="heat-axis-ticks">
          {ticks.map((t) => (
            <span key={t.index} style={{ left: `${(t.index / n) * 100}%` }}>
              {t.label}
            </span>
          ))}
        </div>
      </div>
      <figcaption className="heat-legend">
        KV utilization
        {[0, 0.25, 0.5, 0.75, 1].map((u) => (
          <span key={u}>
            <span className="swatch" style={{ background: heatColor(u) }} /> {u * 100}%
          </span>
        ))}
        <span>
          <span className="swatch" style={{ background: NO_DATA_COLOR }} /> no data
        </span>
        <span>↑ joined · ↓ left during the range</span>
      </figcaption>
    </figure>
  );
}
