"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { causeText } from "@/components/charts/prepare/causes";
import { formatCount, formatDecimal, formatMs, NO_DATA } from "@/components/format";
import { onboardedText, turnTierText } from "@/components/charts/prepare/tiers";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { Turn } from "@/server/analysis/session-assembly";

/** One turn in full: tokens, timing, miss causes with the eviction reason and retention version, and its routing decision. */
export function TurnDetails({ turn }: { turn: Turn }) {
  const trpc = useTRPC();
  const d = useQuery(trpc.sessions.decision.queryOptions({ requestId: turn.requestId }));
  const pv = turn.policyVersions;
  const from = turnTierText(turn.cachedFrom);
  const onboarded = onboardedText(turn.cachedFrom);
  return (
    <section className="card turn-detail" aria-labelledby="turn-heading" data-testid="turn-details">
      <h2 id="turn-heading">Turn {turn.requestId}</h2>
      <dl>
        <dt>Tokens</dt>
        <dd>
          input {formatCount(turn.inputTokens)} · cached {formatCount(turn.cachedTokens)} · output{" "}
          {formatCount(turn.outputTokens)} · reasoning {formatCount(turn.reasoningTokens)}
        </dd>
        {from && (
          <>
            <dt>Cached from</dt>
            <dd data-testid="turn-cached-from">{from}</dd>
          </>
        )}
        {onboarded && (
          <>
            <dt>Hits that cost time</dt>
            <dd data-testid="turn-onboarded">
              {onboarded}
              {turn.onboardMs !== null && turn.onboardMs > 0 && ` (waited ${formatMs(turn.onboardMs)} for them)`}
            </dd>
          </>
        )}
        <dt>Time</dt>
        <dd>
          TTFT {formatMs(turn.ttft)} = queue {formatMs(turn.split.queue)} + prefill {formatMs(turn.split.prefill)}{" "}
          (estimated)
          {turn.onboardMs !== null && turn.onboardMs > 0 && `, of which onboarding ${formatMs(turn.onboardMs)}`} ·
          decode {formatMs(turn.split.decode)}
        </dd>
        <dt>Decode</dt>
        <dd data-testid="turn-decode">
          ITL mean {formatItl(turn.itlMsMean)} · p95 {formatItl(turn.itlMsP95)} ·{" "}
          {turn.preemptions === null
            ? "preemptions not reported"
            : turn.preemptions > 0
              ? `preempted ${turn.preemptions}× (KV recomputed)`
              : "not preempted"}
        </dd>
        <dt>Miss causes</dt>
        <dd data-testid="turn-causes">
          {turn.causes ? causeText(turn.causes) : "not attributed yet"}
          {turn.evictedReason &&
            ` (evicted by ${turn.evictedReason}${turn.retentionVersion !== null ? ` under retention v${turn.retentionVersion}` : ""})`}
        </dd>
        <dt>Policies in force</dt>
        <dd>
          {pv
            ? Object.entries(pv)
                .map(([k, v]) => `${k} v${v}`)
                .join(" · ")
            : NO_DATA}
        </dd>
        <dt>Worker</dt>
        <dd>
          {turn.workerId ? (
            <Link href={`/workers/${encodeURIComponent(turn.workerId)}`}>{turn.workerId}</Link>
          ) : (
            NO_DATA
          )}
        </dd>
        <dt>Reported by</dt>
        <dd data-testid="turn-reported-by">
          {turn.harnessRequestId
            ? `the serving stack and the harness (harness request ${turn.harnessRequestId})`
            : turn.fromHarness
              ? "the harness only (no serving-stack telemetry matched it)"
              : "the serving stack"}
        </dd>
      </dl>
      <h3>Routing decision</h3>
      {d.isPending && <p className="sub">Loading…</p>}
      {d.data === null && <p className="sub">No routing decision was recorded for this turn.</p>}
      {d.data && (
        <>
          <p data-testid="decision-why">
            {d.data.chosenWorkerId}: {d.data.explanation.text}
          </p>
          <table className="sessions-table" aria-label="Routing candidates">
            <thead>
              <tr>
                <th scope="col">Worker</th>
                <th scope="col">Cost</th>
                <th scope="col">Overlap blocks</th>
                <th scope="col">Prefill blocks</th>
                <th scope="col">Decode blocks</th>
                <th scope="col">Mark</th>
              </tr>
            </thead>
            <tbody>
              {d.data.candidates.map((c) => (
                <tr key={c.worker_id}>
                  <td>{c.worker_id}</td>
                  <td>{formatDecimal(c.cost)}</td>
                  <td>{formatCount(c.overlap_blocks)}</td>
                  <td>{formatCount(c.prefill_blocks)}</td>
                  <td>{formatCount(c.decode_blocks)}</td>
                  <td>{c.mark === "winner" ? "chosen" : c.mark === "runner_up" ? "runner-up" : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

/** An inter-token latency with one decimal below 100 ms (ITL is usually tens of ms). */
function formatItl(v: number | null): string {
  return v === null ? "—" : v < 100 ? `${v.toFixed(1)} ms` : formatMs(v);
}
