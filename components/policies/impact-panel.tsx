"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useState } from "react";
import { formatCount, formatMs, formatPercent, formatTime } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { usePolicyScope } from "./cluster-scope";
import { LoadError } from "@/components/ui/load-error";
import { IMPACT_WINDOW_CHOICES } from "@/lib/impact-window";
import type { PolicyKind } from "@/lib/policies/policies";
import type { AppRouter } from "@/server/trpc/root";
import { describeGuard } from "./guard-form";
import { answeredTargets, impactBehind } from "./impact-sync";
import { impactSentence, predictionWords, rate, sidesWords, windowWords } from "./impact-words";

type Impact = inferRouterOutputs<AppRouter>["policies"]["impact"];
type Measured = Extract<Impact["targets"][number], { state: "measured" }>;
type Guard = NonNullable<Impact["guard"]>;

const REFRESH_MS = 5_000;
const CAUSES = [
  ["cold", "cold"],
  ["diverged", "diverged"],
  ["evicted", "evicted"],
  ["routedAway", "routed away"],
  ["unknown", "unknown"],
] as const;

const GUARD_STATE: Record<string, { label: string; tone: string }> = {
  waiting: { label: "waiting for a target to apply it", tone: "info" },
  watching: { label: "watching", tone: "info" },
  passed: { label: "passed", tone: "good" },
  inconclusive: { label: "too little traffic", tone: "warn" },
  tripped: { label: "tripped", tone: "bad" },
  superseded: { label: "stopped: a newer version was published", tone: "warn" },
};

/** A guard's limits, where it stands and, when it tripped, the version it published. */
export function GuardStatus({ kind, version, guard }: { kind: PolicyKind; version: number; guard: Guard }) {
  const s = GUARD_STATE[guard.state] ?? { label: guard.state, tone: "info" };
  return (
    <p className="sub" data-testid={`${kind}-guard-${version}`}>
      Guard: {describeGuard(guard)}.{" "}
      <span className="badge" data-tone={s.tone}>
        {s.label}
      </span>{" "}
      {guard.state === "tripped" && guard.rollbackVersion !== null
        ? `Rolled back by guard: ${guard.reason} — v${guard.rollbackVersion} restores the previous content.`
        : `${guard.message}.`}
    </p>
  );
}

function Row({
  label,
  before,
  after,
  predicted,
}: {
  label: string;
  before: string;
  after: string;
  predicted?: string;
}) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td className="num">{before}</td>
      <td className="num">{after}</td>
      <td className="num">{predicted ?? ""}</td>
    </tr>
  );
}

function TargetMeasured({ t, impact }: { t: Measured; impact: Impact }) {
  const p = impact.prediction;
  const { before: b, after: a } = t;
  const reasons = [...new Set([...b.evictions, ...a.evictions].map((e) => e.reason))];
  const blocks = (m: Measured["before"], reason: string) => m.evictions.find((e) => e.reason === reason)?.blocks ?? 0;
  return (
    <div data-testid={`impact-target-${t.target}`}>
      <h4>
        {t.target}: applied at {formatTime(t.appliedAt, impact.now)} · {windowWords(t.windows)}
      </h4>
      {t.noTraffic ? (
        <p className="sub" role="status">
          No traffic in either window: nothing to compare yet.
        </p>
      ) : (
        <>
          <p data-testid="impact-sentence">{impactSentence(b, a, p)}</p>
          <p className={t.thin.before || t.thin.after ? "impact-thin" : "sub"} data-testid="impact-sides">
            {sidesWords(b, a, t.thin)}
          </p>
          {!t.causesComplete && (
            <p className="sub" role="status">
              Recomputed tokens by cause are incomplete: attribution is behind and has not judged every request of the
              after-window yet.
            </p>
          )}
          <div className="table-wrap">
            <table className="data-table impact-table" aria-label={`Impact on ${t.target}`}>
              <thead>
                <tr>
                  <th scope="col">Metric</th>
                  <th scope="col" className="num">
                    Before
                    {t.thin.before && (
                      <span className="badge" data-tone="warn">
                        {" "}
                        too thin
                      </span>
                    )}
                  </th>
                  <th scope="col" className="num">
                    After
                    {t.thin.after && (
                      <span className="badge" data-tone="warn">
                        {" "}
                        too thin
                      </span>
                    )}
                  </th>
                  <th scope="col" className="num">
                    Predicted
                  </th>
                </tr>
              </thead>
              <tbody>
                <Row label="Requests" before={formatCount(b.requests)} after={formatCount(a.requests)} />
                <Row
                  label="Requests per minute"
                  before={rate(b.rates.requestsPerMinute, 1)}
                  after={rate(a.rates.requestsPerMinute, 1)}
                />
                <Row label="Prompt tokens" before={formatCount(b.inputTokens)} after={formatCount(a.inputTokens)} />
                <Row
                  label="Prefix hit rate (token-weighted)"
                  before={formatPercent(b.hitRate)}
                  after={formatPercent(a.hitRate)}
                  predicted={p ? formatPercent(p.hit_rate) : undefined}
                />
                <Row
                  label="TTFT p50"
                  before={formatMs(b.ttftP50Ms)}
                  after={formatMs(a.ttftP50Ms)}
                  predicted={p ? formatMs(p.ttft_p50_ms) : undefined}
                />
                <Row
                  label="TTFT p95"
                  before={formatMs(b.ttftP95Ms)}
                  after={formatMs(a.ttftP95Ms)}
                  predicted={p ? formatMs(p.ttft_p95_ms) : undefined}
                />
                <Row
                  label="Recomputed per 1,000 prompt tokens"
                  before={rate(b.rates.recomputedPer1kPrompt, 1)}
                  after={rate(a.rates.recomputedPer1kPrompt, 1)}
                />
                <Row
                  label="Recomputed tokens"
                  before={formatCount(b.recomputed.total)}
                  after={formatCount(a.recomputed.total)}
                />
                {CAUSES.map(([key, label]) => (
                  <Row
                    key={key}
                    label={`cause: ${label}`}
                    before={formatCount(b.recomputed[key])}
                    after={formatCount(a.recomputed[key])}
                  />
                ))}
                <Row
                  label="Evicted blocks per request"
                  before={rate(b.rates.evictedBlocksPerRequest, 2)}
                  after={rate(a.rates.evictedBlocksPerRequest, 2)}
                />
                <Row
                  label="Evicted blocks"
                  before={formatCount(b.evictedBlocks)}
                  after={formatCount(a.evictedBlocks)}
                />
                {reasons.map((r) => (
                  <Row
                    key={r}
                    label={`evicted: ${r}`}
                    before={formatCount(blocks(b, r))}
                    after={formatCount(blocks(a, r))}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}

/** One published version's impact: per target, equal windows before and after it applied it, with the prediction. */
export function ImpactPanel({ kind, version }: { kind: PolicyKind; version: number }) {
  const trpc = useTRPC();
  const { cluster } = usePolicyScope();
  const [windowMinutes, setWindowMinutes] = useState<number | null>(null);
  const q = useQuery({
    ...trpc.policies.impact.queryOptions({ cluster, kind, version, windowMinutes }),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });
  // The rollout table's query (the same one, polled by the page): when it has seen more targets answer this version
  // than the panel shows, the panel refetches rather than waiting for its own next poll.
  const rollout = useQuery(trpc.policies.rollout.queryOptions({ cluster }));
  const answered = answeredTargets(rollout.data ?? [], kind, version);
  const shown = q.data?.targets.length;
  const { refetch } = q;
  useEffect(() => {
    if (impactBehind(answered, shown)) void refetch();
  }, [answered, shown, refetch]);
  const id = `${kind}-impact-${version}`;
  return (
    <section className="policies-compare" aria-labelledby={`${id}-heading`} data-testid={`${kind}-impact`}>
      <h3 id={`${id}-heading`}>Impact of v{version}</h3>
      <div className="policies-actions">
        <label>
          Measured window{" "}
          <select
            value={windowMinutes ?? ""}
            onChange={(e) => setWindowMinutes(e.target.value === "" ? null : Number(e.target.value))}
          >
            <option value="">time since applied, up to 1 h</option>
            {IMPACT_WINDOW_CHOICES.map((m) => (
              <option key={m} value={m}>
                {m} min
              </option>
            ))}
          </select>
        </label>
      </div>
      {q.isError && (
        <LoadError
          what="the impact"
          message={q.error.message}
          stale={Boolean(q.data)}
          onRetry={() => void q.refetch()}
        />
      )}
      {q.isPending && (
        <div className="chart-skeleton skeleton" role="progressbar" aria-busy="true" aria-label="Loading impact" />
      )}
      {q.data && (
        <>
          {q.data.guard && <GuardStatus kind={kind} version={version} guard={q.data.guard} />}
          <p className="sub">{predictionWords(q.data.prediction)}</p>
          {q.data.targets.length === 0 && (
            <p className="sub" role="status">
              Not yet applied: no target has acknowledged v{version}.
            </p>
          )}
          {q.data.targets.map((t) =>
            t.state === "rejected" ? (
              <p key={t.target} className="policies-error" data-testid={`impact-target-${t.target}`}>
                {t.target} refused v{version}
                {t.message ? `: ${t.message}` : ""}.
              </p>
            ) : (
              <TargetMeasured key={t.target} t={t} impact={q.data} />
            ),
          )}
        </>
      )}
    </section>
  );
}
