import { formatCount, formatPercent } from "@/components/format";
import { evictionBars } from "@/components/charts/prepare/workers";

/** Removed blocks per reason as horizontal bars, with block and event counts. */
export function EvictionBars({ removals }: { removals: { reason: string; blocks: number; events: number }[] }) {
  const bars = evictionBars(removals);
  return (
    <ul className="bars" aria-label="Evictions by reason">
      {bars.map((b) => (
        <li key={b.reason}>
          <span>{b.reason}</span>
          <span className="bar-track" aria-hidden="true">
            <span
              className="bar-fill"
              style={{ display: "block", width: `${(b.share ?? 0) * 100}%`, background: b.color }}
            />
          </span>
          <span className="num">
            {formatCount(b.blocks)} blocks · {formatPercent(b.share, 0)} · {formatCount(b.events)} ev.
          </span>
        </li>
      ))}
    </ul>
  );
}
