"use client";
import Link from "next/link";
import { formatTick } from "@/components/charts/prepare/buckets";
import { MiniLine } from "@/components/charts/mini-line";
import type { PlacedMark } from "@/components/charts/prepare/policy-marks";
import { formatPercent, formatPercentPoints } from "@/components/format";
import { hitRateMultiples, type Series, type Window } from "@/components/charts/prepare/workers";

/** One small prefix-hit-rate chart per worker on a shared 0–100 % scale; the figure beside each name is the range's rate. */
export function HitRateMultiples({
  series,
  window,
  rates,
  rangeQuery,
  marks = [],
}: {
  series: Series[];
  window: Window;
  rates: Map<string, number | null>;
  rangeQuery: string;
  marks?: PlacedMark[];
}) {
  const multiples = hitRateMultiples(series, window);
  return (
    <div className="multiples">
      {multiples.map((m) => (
        <figure key={m.workerId} className="multiple" style={{ margin: 0 }}>
          <figcaption className="multiple-head">
            <Link href={`/workers/${encodeURIComponent(m.workerId)}?${rangeQuery}`}>{m.workerId}</Link>
            <span className="multiple-value">{formatPercent(rates.get(m.workerId) ?? null)}</span>
          </figcaption>
          {m.empty ? (
            <div className="chart-empty" style={{ minHeight: 56 }}>
              no prefix queries
            </div>
          ) : (
            <MiniLine
              points={m.data.map((d) => ({ t: d.t, v: d.hitRate }))}
              marks={marks.map((mark) => mark.x)}
              label={`Prefix hit rate of ${m.workerId} over time`}
              readout={(p) => `${formatTick(p.t, window.step)} · ${formatPercentPoints(p.v)} hit rate`}
            />
          )}
        </figure>
      ))}
    </div>
  );
}
