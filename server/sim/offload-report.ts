import type { PolicyDocumentInputs } from "../../lib/policies/policies";
import type { EventOf, TelemetryEventInput } from "../ingest/events";
import { quantile } from "../../lib/quantile";
import { Simulation } from "./engine";
import type { PrefetchStats } from "./prefetch";
import { scenarioByName } from "./scenarios";

// The `offload` scenario three ways — offload off, offload to host, offload plus prefetch on resume — with the
// cached share of prompt tokens per tier and TTFT p50 of each (bench:sim and the scenario test print them).

export const OFFLOAD_VARIANTS = ["off", "offload", "prefetch"] as const;
export type OffloadVariant = (typeof OFFLOAD_VARIANTS)[number];

/** Lead of the prefetch variant: onboarding a 50k-token conversation from host takes ~0.5 s at 25 GB/s. */
export const PREFETCH_LEAD_MS = 2_000;

/** The policies of each variant (over the scenario's own). */
export function offloadPolicies(variant: OffloadVariant): Partial<PolicyDocumentInputs> {
  const conversation = {
    name: "agent-context",
    match: { segment: "any" as const },
    priority: 50,
    ...(variant === "off" ? {} : { offload: { to: "host" as const } }),
    prefetch_on_resume: variant === "prefetch",
  };
  return {
    retention: {
      rules: [
        { name: "keep-system-prompt", match: { segment: "system_prompt" }, priority: 90, ttl_seconds: 3600 },
        conversation,
      ],
    },
    frontend: { prefetch: { enabled: variant === "prefetch", lead_ms: PREFETCH_LEAD_MS } },
  };
}

export type OffloadResult = {
  variant: OffloadVariant;
  requests: number;
  /** Shares of prompt tokens served from each tier (device includes prefetched), and prefetched alone. */
  share: { cached: number; device: number; host: number; disk: number; prefetched: number };
  ttftP50: number | null;
  prefetch: PrefetchStats | null;
  /** Wasted share of prefetched blocks (null without prefetches). */
  wastedShare: number | null;
};

/** Run one variant of the offload scenario for `seconds`, measuring requests that arrive after `warmupSeconds`. */
export function runOffload(variant: OffloadVariant, seconds: number, warmupSeconds = 120, seed = 1): OffloadResult {
  const start = 1_764_400_000_000;
  const sim = new Simulation({ scenario: scenarioByName("offload")!, seed, startMs: start });
  for (const [kind, doc] of Object.entries(offloadPolicies(variant))) {
    const r = sim.configure(kind as keyof PolicyDocumentInputs, doc);
    if (!r.ok) throw new Error(`offload ${variant}: ${JSON.stringify(r.errors)}`);
  }
  const requests: EventOf<"request">[] = [];
  sim.setSink((e: TelemetryEventInput) => {
    if (e.kind === "request" && e.status === "ok" && e.arrived_at >= start + warmupSeconds * 1000) requests.push(e);
  });
  sim.runUntil(start + seconds * 1000);
  let input = 0;
  const sums = { cached: 0, device: 0, host: 0, disk: 0, prefetched: 0 };
  const ttfts: number[] = [];
  for (const r of requests) {
    input += r.input_tokens;
    sums.cached += r.cached_tokens;
    sums.device += r.cached_tokens_by_tier?.device ?? r.cached_tokens;
    sums.host += r.cached_tokens_by_tier?.host ?? 0;
    sums.disk += r.cached_tokens_by_tier?.disk ?? 0;
    sums.prefetched += r.prefetched_tokens ?? 0;
    if (r.first_token_at !== undefined) ttfts.push(r.first_token_at - r.arrived_at);
  }
  const share = (n: number) => (input ? n / input : 0);
  const stats = sim.cluster.prefetcher?.stats ?? null;
  const settled = stats ? stats.used + stats.wasted : 0;
  return {
    variant,
    requests: requests.length,
    share: {
      cached: share(sums.cached),
      device: share(sums.device),
      host: share(sums.host),
      disk: share(sums.disk),
      prefetched: share(sums.prefetched),
    },
    ttftP50: quantile(ttfts, 0.5),
    prefetch: stats && stats.prefetches > 0 ? { ...stats } : null,
    wastedShare: stats && settled > 0 ? stats.wasted / settled : null,
  };
}

/** One line per variant: cached share by tier, TTFT p50, and the wasted share of prefetched blocks. */
export function describeOffload(r: OffloadResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const s = r.share;
  const waste = r.wastedShare === null ? "" : `, prefetched blocks wasted ${pct(r.wastedShare)}`;
  return (
    `${r.variant.padEnd(8)} cached ${pct(s.cached)} (device ${pct(s.device)} incl. prefetched ${pct(s.prefetched)}, ` +
    `host ${pct(s.host)}, disk ${pct(s.disk)}), TTFT p50 ${r.ttftP50 === null ? "–" : `${Math.round(r.ttftP50)} ms`}` +
    `, ${r.requests} requests${waste}`
  );
}
