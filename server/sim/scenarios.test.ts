import { describe, expect, it } from "vitest";
import { cachedShare, ofKind, runScenario, T0 } from "./test-support";

const MIN = 60_000;

describe("preamble: per-session billing headers break cross-session prefix reuse", () => {
  const run = (strip: boolean) =>
    runScenario({ scenario: "preamble", seconds: 600, policies: { frontend: { strip_anthropic_preamble: strip } } });
  const off = run(false);
  const on = run(true);
  const shareOff = cachedShare(off, T0 + 2 * MIN);
  const shareOn = cachedShare(on, T0 + 2 * MIN);

  it("loses at least a quarter of the cached share with stripping off", () => {
    expect(shareOn).toBeGreaterThan(0.8);
    expect(shareOff).toBeLessThan(0.75 * shareOn);
  });

  it("keeps the shared prompt's local hashes identical either way (the miss is a divergence, not new content)", () => {
    const firstTurns = ofKind(off, "request").filter((r) => r.cached_tokens === 0 && r.input_tokens > 30_000);
    expect(firstTurns.length).toBeGreaterThan(20);
    const [a, b] = firstTurns;
    expect(a!.local_hashes!.slice(1, 400)).toEqual(b!.local_hashes!.slice(1, 400));
    expect(a!.sequence_hashes![1]).not.toBe(b!.sequence_hashes![1]);
  });

  it("runs subagents that share the team's system prompt", () => {
    const subs = ofKind(on, "request").filter((r) => r.parent_trajectory_id);
    expect(subs.length).toBeGreaterThan(100);
    expect(subs.filter((r) => r.cached_tokens >= 29_000).length / subs.length).toBeGreaterThan(0.8);
  });
});

describe("surge: the planner follows the load both ways", () => {
  const events = runScenario({ scenario: "surge", seconds: 2_100 });
  const decisions = ofKind(events, "planner.decision");

  it.each(["prefill", "decode"] as const)("scales %s workers up during the ramp and down after it", (role) => {
    const mine = decisions.filter((d) => d.role === role);
    const ups = mine.filter((d) => d.action === "scale_up");
    const downs = mine.filter((d) => d.action === "scale_down");
    expect(ups.length).toBeGreaterThanOrEqual(2);
    expect(downs.length).toBeGreaterThanOrEqual(1);
    const peak = Math.max(...mine.map((d) => d.replicas_after));
    expect(peak).toBeGreaterThanOrEqual(3);
    expect(mine.at(-1)!.replicas_after).toBeLessThan(peak);
    expect(Math.min(...ups.map((d) => d.ts))).toBeLessThan(Math.max(...downs.map((d) => d.ts)));
  });

  it("explains every decision, including no change", () => {
    expect(decisions.length).toBe(2 * (2_100 / 20));
    expect(decisions.some((d) => d.action === "none" && /^no change: .+ between /.test(d.reason))).toBe(true);
    for (const d of decisions) expect(d.reason.length).toBeGreaterThan(10);
  });

  it("brings workers up cold and takes them down with their cache", () => {
    const ups = ofKind(events, "worker.up");
    const downs = ofKind(events, "worker.down");
    expect(ups.length).toBeGreaterThan(4);
    expect(downs.length).toBeGreaterThan(1);
    const first = new Map<string, number>();
    for (const e of events)
      if ((e.kind === "kv.stored" || e.kind === "worker.up") && !first.has(e.worker_id))
        first.set(e.worker_id, e.kind === "worker.up" ? 1 : 0);
    expect([...first.values()].every((v) => v === 1)).toBe(true);
    const cleared = new Set(ofKind(events, "kv.cleared").map((e) => e.worker_id));
    const stats = ofKind(events, "worker.stats");
    for (const d of downs) {
      expect(stats.some((s) => s.worker_id === d.worker_id && s.ts > d.ts)).toBe(false);
      if (ofKind(events, "kv.stored").some((s) => s.worker_id === d.worker_id && s.ts < d.ts))
        expect(cleared.has(d.worker_id)).toBe(true);
    }
  });
});

describe("pressure: the retention policy decides which prefixes survive", () => {
  const systemPromptHit = (priority: number) => {
    const events = runScenario({
      scenario: "pressure",
      seconds: 900,
      policies: { retention: { rules: [{ name: "system-prompt", match: { segment: "system_prompt" }, priority }] } },
    });
    const turns = ofKind(events, "request").filter((r) => r.arrived_at > T0 + 2 * MIN);
    const removed = ofKind(events, "kv.removed").reduce((n, e) => n + e.block_hashes.length, 0);
    const stats = ofKind(events, "worker.stats");
    const workerPreemptions = new Map(stats.map((e) => [e.worker_id, Number(e.preemptions ?? 0)]));
    return {
      hit: turns.filter((r) => r.cached_tokens >= (r.harness === "codex" ? 12_000 : 20_000)).length / turns.length,
      removed,
      preempted: turns.filter((r) => (r.preemptions ?? 0) > 0),
      workerPreemptions: [...workerPreemptions.values()].reduce((a, b) => a + b, 0),
      ttft: turns.filter((r) => r.first_token_at !== undefined).map((r) => r.first_token_at! - r.arrived_at),
    };
  };
  const high = systemPromptHit(90);
  const low = systemPromptHit(10);

  it("evicts under pressure", () => {
    expect(high.removed).toBeGreaterThan(50_000);
  });

  it("preempts requests when KV runs out and reports it per request and per worker", () => {
    expect(high.preempted.length).toBeGreaterThan(10);
    expect(high.workerPreemptions).toBeGreaterThanOrEqual(high.preempted.reduce((n, r) => n + r.preemptions!, 0));
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
    const recomputed = high.preempted
      .filter((r) => r.first_token_at !== undefined)
      .map((r) => r.first_token_at! - r.arrived_at);
    expect(median(recomputed)).toBeGreaterThan(median(high.ttft));
  });

  it("keeps the system prompt cached more often when its rule has the higher priority", () => {
    expect(high.hit).toBeGreaterThan(low.hit + 0.05);
  });
});
