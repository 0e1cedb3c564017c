"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { CapacityChart } from "@/components/charts/capacity-chart";
import { gbText, ReplaySection, TierGridSection } from "@/components/capacity/sections";
import {
  answerWords,
  chartRows,
  classGains,
  lruAt,
  replayTargets,
  tierRows,
  workerRows,
  type CapacityBody,
  type ReplayBody,
} from "@/components/capacity/prepare";
import { formatPercent, formatRange } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { ScopePicker } from "@/components/ui/scope-picker";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { useRange } from "@/components/ui/use-range";
import { useScope } from "@/components/ui/use-scope";
import { resolveRange } from "@/lib/time-range";
import "@/components/ui/cluster-views.css";

const DEFAULT_TARGET = 0.8;
/** Presets the capacity API takes (a window is at most 24 h). */
const PRESETS = ["15m", "1h", "6h", "24h"] as const;

async function getJson<T>(url: string, signal: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal, credentials: "same-origin" });
  const body = (await res.json().catch(() => null)) as ({ error?: string } & T) | null;
  if (!res.ok) throw new Error(body?.error ?? `${res.status} ${res.statusText}`);
  return body as T;
}

/** The Capacity page: how much KV buys how much prefix hit rate, from one cluster's recorded traffic. */
export function CapacityView() {
  const [range, setRange] = useRange();
  const [scope, setScope, scopeProblem] = useScope();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const trpc = useTRPC();
  const scopes = useQuery(trpc.overview.scopes.queryOptions());
  const cluster = scope.cluster ?? scopes.data?.clusters[0]?.name ?? "default";
  const urlTarget = Number(params.get("target"));
  const target = urlTarget > 0 && urlTarget <= 1 ? urlTarget : DEFAULT_TARGET;
  const [draft, setDraft] = useState(String(Math.round(target * 100)));
  const [draftError, setDraftError] = useState<string | null>(null);
  // A preset window is fixed when the page asks, so the curve does not move under the reader (Refresh asks again).
  const [asked, setAsked] = useState(() => Date.now());
  const window = resolveRange(range, asked);
  const q = new URLSearchParams({ from: String(window.from), to: String(window.to), cluster });
  if (scope.model) q.set("model", scope.model);
  const curvesQuery = `${q.toString()}&target=${target}`;
  const curves = useQuery({
    queryKey: ["capacity", curvesQuery],
    queryFn: ({ signal }) => getJson<CapacityBody>(`/api/capacity?${curvesQuery}`, signal),
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    retry: false,
    enabled: !scope.cluster ? scopes.isSuccess || scopes.isError : true,
  });
  const b = curves.data;
  const targets = b && b.empty === null ? replayTargets(b) : [];
  const replayQuery = `${q.toString()}&capacities=${targets.join(",")}`;
  const replay = useQuery({
    queryKey: ["capacity-replay", replayQuery],
    queryFn: ({ signal }) => getJson<ReplayBody>(`/api/capacity/replay?${replayQuery}`, signal),
    staleTime: Infinity,
    retry: false,
    enabled: targets.length > 0 && !curves.isPlaceholderData,
  });

  const submitTarget = (e: React.FormEvent) => {
    e.preventDefault();
    const v = Number(draft);
    if (!(v > 0 && v <= 100)) return setDraftError("Enter a hit rate from 1 to 100 %.");
    setDraftError(null);
    const next = new URLSearchParams(params.toString());
    next.set("target", String(v / 100));
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };

  const ok = b && b.empty === null ? b : null;
  const gbPerBlock = ok ? (ok.block_size! * ok.bytes_per_token!) / 1e9 : 0;
  const rows = ok ? chartRows(ok, replay.data ?? null) : [];
  const words = ok ? answerWords(ok) : [];
  const workers = ok ? workerRows(ok) : [];
  const tiers = ok ? tierRows(ok) : [];
  const classes = ok ? classGains(ok) : [];

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Capacity</h1>
          <div className="sub">
            How much KV buys how much prefix hit rate, from cluster <strong>{cluster}</strong>
            {scope.model ? ` · ${scope.model}` : ""}’s recorded traffic · {formatRange(window.from, window.to)}
          </div>
        </div>
        <div className="page-controls">
          <ScopePicker value={scope} onChange={setScope} />
          <TimeRangePicker
            value={range}
            presets={PRESETS}
            onChange={(r) => {
              setAsked(Date.now());
              setRange(r);
            }}
          />
          <button className="button" type="button" onClick={() => setAsked(Date.now())}>
            Refresh
          </button>
        </div>
      </div>
      {scopeProblem && (
        <p role="alert" className="notice">
          {scopeProblem}.
        </p>
      )}
      {!scope.cluster && (
        <p role="status" className="sub">
          A capacity curve is one cluster’s: showing {cluster}. Choose another cluster above.
        </p>
      )}
      {b?.deleted.map((d) => (
        <p key={d} role="status" className="notice">
          {d}
        </p>
      ))}
      {curves.isError && (
        <LoadError
          what="the capacity curves"
          message={curves.error.message}
          stale={Boolean(b)}
          onRetry={() => void curves.refetch()}
        />
      )}
      {curves.isPending && !curves.isError && (
        <div className="chart-card" aria-busy="true" role="progressbar" aria-label="Computing the capacity curves">
          <p className="sub">Computing the curves from every turn’s block chain…</p>
          <div className="chart-skeleton skeleton" />
        </div>
      )}
      {b && b.empty !== null && (
        <div role="status" className="notice" data-testid="capacity-empty">
          <h2>
            {b.empty === "no chains in the window"
              ? "No block chains in this window"
              : "No recorded requests in this window"}
          </h2>
          <p>
            {b.empty === "no chains in the window"
              ? `The window's ${b.turns.toLocaleString("en-US")} requests carry no KV block chains (only their token counts, as Prometheus samples or a harness log give them), so there is no cache to size. Send KV events or import a trace with block hashes.`
              : "Pick a longer range or another cluster."}
          </p>
        </div>
      )}

      {ok && (
        <>
          <section className="section" aria-labelledby="answer-title">
            <h2 id="answer-title">What capacity for a target hit rate</h2>
            <form className="capacity-target" onSubmit={submitTarget} noValidate>
              <label htmlFor="capacity-target">Target prefix hit rate</label>
              <input
                id="capacity-target"
                type="number"
                min={1}
                max={100}
                step={1}
                value={draft}
                onChange={(e) => setDraft(e.target.value)}
                aria-invalid={draftError ? true : undefined}
              />
              <span>%</span>
              <button className="button" type="submit">
                Answer
              </button>
              {draftError && (
                <span role="alert" className="policies-error">
                  {draftError}
                </span>
              )}
            </form>
            <div data-testid="capacity-answer">
              {words.map((w) => (
                <p key={w}>{w}</p>
              ))}
            </div>
            <p className="sub">
              Today:{" "}
              {ok.today_blocks
                ? `${ok.today_blocks.toLocaleString("en-US")} blocks per worker (${gbText(ok.today_blocks * gbPerBlock)}), `
                : ""}
              {ok.today_source}. GB: {ok.kv_source}. {ok.block_size} tokens per block.
            </p>
          </section>

          <section className="section" aria-labelledby="curve-title">
            <h2 id="curve-title">Hit rate against KV per worker</h2>
            <div className="chart-card">
              <p className="sub chart-note">
                {ok.sampling
                  ? `Sampled (${ok.sampling.method}): ±${ok.sampling.error_points?.toFixed(1) ?? "?"} points from ${Math.round(ok.sampling.reliable_from_blocks).toLocaleString("en-US")} blocks on; below that the curve is blurred.`
                  : `Exact: an LRU cache of every size over ${ok.chained_turns!.toLocaleString("en-US")} turns’ block chains (${ok.turns.toLocaleString("en-US")} turns in the window${ok.unrouted_turns ? `, ${ok.unrouted_turns} without a worker count as misses` : ""}).`}{" "}
                {ok.elapsed_ms
                  ? `Computed in ${((ok.elapsed_ms.read + ok.elapsed_ms.curves + ok.elapsed_ms.tiers) / 1000).toFixed(1)} s (reading the window ${(ok.elapsed_ms.read / 1000).toFixed(1)} s). `
                  : ""}
                The gap between the two lines is what routing costs: the dashed line is one cache over all turns with
                the same KV in all. Dots are the window replayed through the policy preview’s engine at that capacity.
              </p>
              <CapacityChart
                rows={rows}
                gbPerBlock={gbPerBlock}
                today={ok.today_blocks ?? null}
                knee={
                  ok.knee?.per_worker
                    ? { blocks: ok.knee.per_worker.blocks, hitRate: ok.knee.per_worker.hit_rate }
                    : null
                }
                target={target}
              />
              <p className="sub">
                {ok.knee?.per_worker
                  ? `Knee: ${ok.knee.per_worker.blocks.toLocaleString("en-US")} blocks per worker (${gbText(ok.knee.per_worker.gigabytes)}) at ${formatPercent(ok.knee.per_worker.hit_rate)}; past it each block buys less than the curve’s average. `
                  : "No knee in this range: gains keep growing to the largest size. "}
                <a href={`/api/capacity?${curvesQuery}&format=csv`} download>
                  Download CSV
                </a>
              </p>
            </div>
          </section>

          <ReplaySection
            ok={ok}
            replay={replay}
            targets={targets.length}
            gbPerBlock={gbPerBlock}
            onRetry={() => void replay.refetch()}
          />
          <TierGridSection ok={ok} tiers={tiers} />

          {classes.length > 0 && (
            <section className="section" aria-labelledby="classes-title">
              <h2 id="classes-title">Where the gain is</h2>
              <p className="sub">
                Share of the window’s prompt tokens served, by retention class, today and at the largest size.
              </p>
              <div className="table-wrap">
                <table className="data-table" aria-label="Hit tokens by retention class">
                  <thead>
                    <tr>
                      <th>Class</th>
                      <th>Today</th>
                      <th>At 4× today</th>
                      <th>Gain</th>
                    </tr>
                  </thead>
                  <tbody>
                    {classes.map((c) => (
                      <tr key={c.name}>
                        <td>{c.name.replace(/_/g, " ")}</td>
                        <td>{formatPercent(c.today)}</td>
                        <td>{formatPercent(c.most)}</td>
                        <td>{((c.most - c.today) * 100).toFixed(1)} points</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          )}

          {workers.length > 0 && (
            <section className="section" aria-labelledby="workers-title">
              <h2 id="workers-title">Each worker’s own curve</h2>
              <p className="sub">
                Each worker’s cache over the turns the router sent it, its hit rate over their prompt tokens.
              </p>
              <div className="table-wrap">
                <table className="data-table" aria-label="Per-worker curves">
                  <thead>
                    <tr>
                      <th>Worker</th>
                      <th>Turns</th>
                      <th>Today</th>
                      <th>At 2×</th>
                      <th>At 4×</th>
                    </tr>
                  </thead>
                  <tbody>
                    {workers.map((w) => (
                      <tr key={w.worker}>
                        <td>{w.worker}</td>
                        <td>{w.turns.toLocaleString("en-US")}</td>
                        <td>{formatPercent(w.today)}</td>
                        <td>{formatPercent(w.double)}</td>
                        <td>{formatPercent(w.most)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          )}
        </>
      )}
    </>
  );
}
