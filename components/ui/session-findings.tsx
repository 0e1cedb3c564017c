"use client";
import { useQuery } from "@tanstack/react-query";
import { formatCount, formatMs, formatPercent } from "@/components/format";
import { CauseSeriesChart } from "@/components/charts/cause-series-chart";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { RangeSpec } from "@/lib/time-range";
import { describeScope, isWholeFleet, type Scope } from "@/lib/scope";
import "@/components/ui/sessions.css";

/**
 * Findings over the range's sessions (unstable prefix, KV held over tool waits), of a scope's requests and sessions when
 * one is given, and recomputed tokens by cause over time (the whole fleet's).
 */
export function SessionFindings({ range, scope = {} }: { range: RangeSpec; scope?: Scope }) {
  const trpc = useTRPC();
  const live = "preset" in range;
  const q = useQuery({
    ...trpc.sessions.findings.queryOptions({ range, ...scope }),
    refetchInterval: live ? 5_000 : false,
  });
  const u = q.data?.unstablePrefix;
  const w = q.data?.toolWait;
  return (
    <section className="section" aria-labelledby="findings-heading">
      <h2 id="findings-heading">Findings</h2>
      {!isWholeFleet(scope) && (
        <p className="sub" data-testid="findings-scope">
          Findings of {describeScope(scope)}; the recomputed tokens by cause cover all clusters.
        </p>
      )}
      <div className="two-col">
        <div>
          {u && (
            <article className="card finding" data-testid="finding-unstable-prefix" aria-labelledby="finding-prefix">
              <h3 id="finding-prefix">Unstable prompt prefix</h3>
              <p>
                {formatCount(u.sessionsAffected)} of {formatCount(u.sessionsCompared)} sessions start with a different
                first block ({formatCount(u.distinctFirstBlocks)} variants) while the rest of the prompt matches:{" "}
                {formatCount(u.tokensRecomputed)} tokens recomputed as <strong>diverged</strong>.
              </p>
              <p>
                TTFT cost:{" "}
                {u.ttftPerTurnMs === null
                  ? "not measurable yet"
                  : `≈ ${formatMs(u.ttftPerTurnMs)} per affected turn, ${formatMs(u.ttftCostMs)} in total`}
                .
              </p>
              <p>
                <strong>Remedy:</strong> {u.remedy}
              </p>
            </article>
          )}
          {w && (
            <article className="card" data-testid="finding-tool-wait" style={{ marginTop: 12 }}>
              <h3 style={{ margin: "0 0 6px", fontSize: 15 }}>KV held while agents wait on tools</h3>
              <p style={{ fontSize: 13, margin: 0 }}>
                {formatCount(w.waits)} tool waits (mean {formatMs(w.meanWaitMs)}) held {formatCount(w.heldTokens)}{" "}
                prompt tokens of KV; {formatPercent(w.survivedShare)} of it was still cached at the agent&apos;s next
                turn.
              </p>
              {w.prefetch && (
                <p style={{ fontSize: 13, margin: "6px 0 0" }} data-testid="finding-prefetch">
                  Prefetch on resume brought back {formatCount(w.prefetch.prefetchedTokens)} tokens before agents
                  resumed
                  {w.prefetch.savedMs !== null && ` (≈ ${formatMs(w.prefetch.savedMs)} of onboarding saved)`};{" "}
                  {w.prefetch.onboardTurns > 0
                    ? `${formatCount(w.prefetch.onboardTurns)} turns still waited ${formatMs(w.prefetch.wouldSaveMs)} for ${formatCount(w.prefetch.onboardedTokens)} tokens from host, disk or shared storage — what prefetch would save.`
                    : "no turn waited for blocks from a lower tier."}
                </p>
              )}
            </article>
          )}
          {q.data && !u && !w && (
            <p className="chart-empty" role="status">
              No findings in this range.
            </p>
          )}
        </div>
        <CauseSeriesChart range={range} />
      </div>
    </section>
  );
}
