"use client";
import Link from "next/link";
import { Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import { policyMarkLines } from "@/components/charts/policy-marks";
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
            <LineChart
              responsive
              data={m.data}
              style={{ width: "100%", height: 56 }}
              margin={{ top: 4, right: 2, bottom: 2, left: 2 }}
              aria-label={`Prefix hit rate of ${m.workerId} over time`}
            >
              <XAxis hide dataKey="t" />
              <YAxis hide domain={[0, 100]} />
              <Tooltip
                labelFormatter={(_, p) =>
                  p[0] ? formatTick(Number((p[0].payload as { t: number }).t), window.step) : ""
                }
                formatter={(v) => [formatPercentPoints(typeof v === "number" ? v : null), "hit rate"]}
                contentStyle={{
                  background: "var(--panel)",
                  border: "1px solid var(--border)",
                  color: "var(--text)",
                  fontSize: 12,
                }}
              />
              <Line
                dataKey="hitRate"
                stroke="var(--series-1)"
                strokeWidth={1.4}
                dot={false}
                connectNulls={false}
                isAnimationActive={false}
              />
              {policyMarkLines(marks, { labels: false })}
            </LineChart>
          )}
        </figure>
      ))}
    </div>
  );
}
