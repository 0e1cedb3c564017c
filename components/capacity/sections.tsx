"use client";
import type { UseQueryResult } from "@tanstack/react-query";
import { lruAt, type CapacityBody, type ReplayBody, type tierRows } from "@/components/capacity/prepare";
import { formatPercent } from "@/components/format";
import { LoadError } from "@/components/ui/load-error";

// Two tables of the Capacity page: the replayed capacities against the LRU curve, and the GPU × host-tier grid.

/** "157 GB", "12.5 GB". */
export const gbText = (gb: number) => `${gb >= 100 ? Math.round(gb).toLocaleString("en-US") : gb.toFixed(1)} GB`;

/** The window replayed at a few capacities with its recorded policies, beside the LRU curve's figure at each. */
export function ReplaySection({
  ok,
  replay,
  targets,
  gbPerBlock,
  onRetry,
}: {
  ok: CapacityBody;
  replay: UseQueryResult<ReplayBody>;
  targets: number;
  gbPerBlock: number;
  onRetry: () => void;
}) {
  return (
    <section className="section" aria-labelledby="replay-title">
      <h2 id="replay-title">Checked against the replay engine</h2>
      {replay.isPending && (
        <p role="status" aria-busy="true" className="sub" data-testid="replay-pending">
          Replaying the window at {targets} capacities with its recorded policies… each replay takes seconds.
        </p>
      )}
      {replay.isError && <LoadError what="the replayed capacities" message={replay.error.message} onRetry={onRetry} />}
      {replay.data && (
        <>
          <div className="table-wrap">
            <table className="data-table" aria-label="Replayed capacities" data-testid="replay-table">
              <thead>
                <tr>
                  <th>KV per worker</th>
                  <th>LRU curve</th>
                  <th>Replayed</th>
                  <th>Gap</th>
                </tr>
              </thead>
              <tbody>
                {replay.data.points.map((p) => {
                  const lru = lruAt(ok, p.blocks);
                  const label = [
                    p.blocks === ok.today_blocks ? "today" : null,
                    p.blocks === ok.knee?.per_worker?.blocks ? "knee" : null,
                    p.blocks === ok.per_worker!.points.at(-1)?.blocks ? "largest" : null,
                  ].filter(Boolean);
                  return (
                    <tr key={p.blocks}>
                      <td>
                        {p.blocks.toLocaleString("en-US")} blocks ({gbText(p.blocks * gbPerBlock)})
                        {label.length ? ` · ${label.join(", ")}` : ""}
                      </td>
                      <td>{formatPercent(lru)}</td>
                      <td>{formatPercent(p.hit_rate)}</td>
                      <td>
                        {lru !== null && p.hit_rate !== null ? `${((p.hit_rate - lru) * 100).toFixed(1)} points` : "—"}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <p className="sub" style={{ marginTop: 8 }}>
            Measured in the window: {formatPercent(replay.data.measured_hit_rate)}. Why the replay and the LRU curve
            differ:
          </p>
          <ul className="sub">
            {replay.data.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** Share of prompt tokens served from the GPU and from a host tier behind it, per size of each. */
export function TierGridSection({ ok, tiers }: { ok: CapacityBody; tiers: ReturnType<typeof tierRows> }) {
  return (
    <section className="section" aria-labelledby="tiers-title">
      <h2 id="tiers-title">GPU KV with a host tier behind it</h2>
      {tiers.length ? (
        <>
          <p className="sub">
            Share of prompt tokens served from the GPU + from the tier, and the onboarding time per turn that reads from
            the tier at {ok.tiers!.gb_per_second} GB/s (sizes per worker; exact LRU, the tier holding what the GPU
            evicted).
          </p>
          <div className="table-wrap">
            <table className="data-table" aria-label="Tier grid" data-testid="tier-grid">
              <thead>
                <tr>
                  <th>GPU KV / tier</th>
                  {tiers[0]!.cells.map((c) => (
                    <th key={c.tierBlocks}>{c.tierBlocks === 0 ? "no tier" : gbText(c.tierGb)}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {tiers.map((r) => (
                  <tr key={r.device}>
                    <th scope="row">
                      {gbText(r.deviceGb)}
                      {r.device === ok.today_blocks ? " (today)" : ""}
                    </th>
                    {r.cells.map((c) => (
                      <td key={c.tierBlocks}>
                        {formatPercent(c.device + c.tier)}
                        {c.tierBlocks > 0 && (
                          <span className="sub">
                            {" "}
                            ({formatPercent(c.device, 0)} + {formatPercent(c.tier, 0)}
                            {c.onboardMsPerTierTurn !== null ? `, ${Math.round(c.onboardMsPerTierTurn)} ms` : ""})
                          </span>
                        )}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : (
        <p className="sub">No tier grid: {ok.tiers_note}.</p>
      )}
    </section>
  );
}
