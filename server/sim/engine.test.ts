import { beforeAll, describe, expect, it } from "vitest";
import { parseEvent, type TelemetryEventInput } from "../ingest/events";
import { FAST_JSON, toJsonLine, type FastJson } from "./json-lines";
import { scenarioByName, SCENARIO_NAMES } from "./scenarios";
import { Simulation } from "./engine";
import { removedCount } from "./event-builders";
import { makeSim, ofKind, runScenario, T0 } from "./test-support";
import type { SimRequest } from "./types";

let steady: TelemetryEventInput[];
beforeAll(() => {
  steady = runScenario({ scenario: "steady", seconds: 300 });
});

describe("emitted events", () => {
  it("all pass the ingest schema after a JSON round trip", () => {
    const bad = steady.map((e) => parseEvent(JSON.parse(JSON.stringify(e)))).filter((r) => !r.ok);
    expect(bad.slice(0, 3)).toEqual([]);
    expect(steady.length).toBeGreaterThan(5_000);
  });

  it.each(SCENARIO_NAMES.filter((n) => n !== "steady"))("all pass the ingest schema in the %s scenario", (scenario) => {
    const events = runScenario({ scenario, seconds: 120, seed: 7 });
    const bad = events.map((e) => parseEvent(JSON.parse(JSON.stringify(e)))).filter((r) => !r.ok);
    expect(bad.slice(0, 3)).toEqual([]);
    expect(ofKind(events, "request").length).toBeGreaterThan(20);
  });

  it("serialise to NDJSON lines exactly as JSON.stringify would", () => {
    const fast = steady.filter((e) => (e as FastJson)[FAST_JSON]);
    expect(fast.length).toBeGreaterThan(1_000);
    for (const e of steady) if (toJsonLine(e) !== JSON.stringify(e)) expect(toJsonLine(e)).toBe(JSON.stringify(e));
  });

  it("have unique ids with the run prefix and non-decreasing timestamps", () => {
    const ids = new Set(steady.map((e) => e.id));
    expect(ids.size).toBe(steady.length);
    const prefix = steady[0]!.id.split("-")[0];
    expect(steady.every((e) => e.id.startsWith(`${prefix}-`) && e.id.length <= 128)).toBe(true);
    for (let i = 1; i < steady.length; i++) expect(steady[i]!.ts).toBeGreaterThanOrEqual(steady[i - 1]!.ts);
  });

  it("include every kind the steady cluster produces", () => {
    const kinds = new Set(steady.map((e) => e.kind));
    for (const k of [
      "worker.up",
      "worker.stats",
      "kv.stored",
      "kv.removed",
      "route.decision",
      "request",
      "tool",
      "reasoning",
      "planner.decision",
    ])
      expect(kinds).toContain(k);
  });
});

describe("a sink that takes some kinds", () => {
  it("gets exactly the events of those kinds a full run emits, and the run is otherwise the same", () => {
    const kinds = ["route.decision", "kv.removed", "worker.up", "worker.stats"] as const;
    const { sim, events } = makeSim({ scenario: "steady" });
    sim.setSink((e) => events.push(e), [...kinds]);
    sim.runUntil(T0 + 300_000);
    const strip = (e: TelemetryEventInput) => JSON.stringify({ ...JSON.parse(JSON.stringify(e)), id: undefined });
    const wanted = steady.filter((e) => (kinds as readonly string[]).includes(e.kind));
    expect(new Set(events.map((e) => e.kind))).toEqual(new Set(kinds));
    expect(events.length).toBe(wanted.length);
    expect(events.map(strip)).toEqual(wanted.map(strip));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(sim.wants("request")).toBe(false);
    expect(sim.wants("kv.removed")).toBe(true);
  });

  it("without request events, keeps no inter-token gaps, and each request finishes as in a full run", () => {
    const { sim } = makeSim({ scenario: "steady" });
    sim.setSink(() => undefined, ["worker.up"]);
    const submitted: SimRequest[] = [];
    const submit = sim.submit.bind(sim);
    sim.submit = (r) => {
      submitted.push(r);
      submit(r);
    };
    sim.runUntil(T0 + 300_000);
    const full = new Map(ofKind(steady, "request").map((e) => [e.request_id, e]));
    const finished = submitted.filter((r) => r.finishedAt !== null && full.has(r.id));
    expect(finished.length).toBeGreaterThan(100);
    expect(submitted.every((r) => r.itlRuns === null)).toBe(true);
    const times = (r: SimRequest) => [r.id, Math.round(r.arrivedAt), Math.round(r.finishedAt!), r.cachedTokens];
    expect(finished.map(times)).toEqual(
      finished.map((r) => {
        const e = full.get(r.id)!;
        return [r.id, e.arrived_at, e.finished_at, e.cached_tokens];
      }),
    );
    expect([...full.values()].some((e) => e.itl_ms_mean !== undefined)).toBe(true);
  });

  it("without kv.removed, tells onRemovals what each flush's kv.removed events would have counted, in their order", () => {
    const { sim } = makeSim({ scenario: "steady" });
    const told: [string, number, string, number][] = [];
    sim.setSink(() => undefined, ["worker.up"]);
    // Consecutive reports of one worker, time and reason summed (a flush's events split a long list in parts).
    const add = (out: [string, number, string, number][], w: string, ts: number, reason: string, n: number) => {
      const last = out[out.length - 1];
      if (last && last[0] === w && last[1] === ts && last[2] === reason) last[3] += n;
      else out.push([w, ts, reason, n]);
    };
    sim.onRemovals = (w, ts, counts) => {
      for (const [reason, n] of counts) add(told, w, ts, reason, n);
    };
    sim.runUntil(T0 + 300_000);
    const want: [string, number, string, number][] = [];
    for (const e of ofKind(steady, "kv.removed")) add(want, e.worker_id, e.ts, e.reason, removedCount(e));
    expect(want.length).toBeGreaterThan(100);
    expect(told).toEqual(want);
  });
});

describe("a simulation with fixed policies", () => {
  it("refuses a policy version, and records a trajectory's stored blocks only when its start configuration evicts on end", () => {
    const fixed = makeSim({ scenario: "steady" }).sim;
    expect(fixed.keepsOwnedRefs).toBe(true);
    const scenario = { ...scenarioByName("steady")!, policies: {} };
    const start = { scenario, seed: 1, startMs: T0, fixedPolicies: true };
    const plain = new Simulation(start);
    expect(plain.keepsOwnedRefs).toBe(false);
    expect(() => plain.applyPolicy("retention", 1, { rules: [] })).toThrow(/fixed/);
    const ending = new Simulation({
      ...start,
      scenario: { ...scenario, policies: { retention: { rules: [], default: { evict_on: "session_end" } } } },
    });
    expect(ending.keepsOwnedRefs).toBe(true);
  });
});

describe("workers", () => {
  it("report stats once per simulated second each, with cumulative prefix counters", () => {
    const stats = ofKind(steady, "worker.stats");
    const up = ofKind(steady, "worker.up").length;
    expect(stats.length).toBe(up * 300);
    const byWorker = new Map<string, bigint>();
    for (const s of stats) {
      const hits = BigInt(s.prefix_hit_tokens);
      expect(hits).toBeGreaterThanOrEqual(byWorker.get(s.worker_id) ?? 0n);
      expect(hits).toBeLessThanOrEqual(BigInt(s.prefix_query_tokens));
      byWorker.set(s.worker_id, hits);
    }
    expect([...byWorker.values()].every((h) => h > 0n)).toBe(true);
  });

  it("only remove blocks they stored, with a removal reason", () => {
    const held = new Map<string, Set<string>>();
    let removed = 0;
    let unknown = 0;
    for (const e of steady) {
      if (e.kind === "kv.stored") {
        const set = held.get(e.worker_id) ?? new Set<string>();
        for (const h of e.block_hashes) set.add(h);
        held.set(e.worker_id, set);
        expect(e.retention_class).toBeTruthy();
        expect(e.local_hashes?.length).toBe(e.block_hashes.length);
      } else if (e.kind === "kv.removed") {
        const set = held.get(e.worker_id)!;
        for (const h of e.block_hashes) if (!set.delete(h)) unknown++;
        removed += e.block_hashes.length;
      } else if (e.kind === "kv.cleared") held.delete(e.worker_id);
    }
    expect(removed).toBeGreaterThan(1_000);
    expect(unknown).toBe(0);
  });
});

describe("requests", () => {
  const requests = () => ofKind(steady, "request");

  it("carry hashes, block size, harness, API and the policy versions in force", () => {
    for (const r of requests()) {
      expect(r.block_size).toBe(64);
      expect(r.sequence_hashes!.length).toBe(Math.floor(r.input_tokens / 64));
      expect(r.local_hashes!.length).toBe(r.sequence_hashes!.length);
      expect(r.cached_tokens % 64).toBe(0);
      expect(r.policy_versions).toEqual({ retention: 0, autoscaling: 0, routing: 0, frontend: 0 });
      expect(r.api).toBe(r.harness === "claude_code" ? "messages" : "responses");
    }
  });

  it("each follow a route decision naming the worker that served them", () => {
    const decisions = new Map(ofKind(steady, "route.decision").map((d) => [d.request_id, d]));
    for (const r of requests()) {
      const d = decisions.get(r.request_id)!;
      expect(d.chosen_worker_id).toBe(r.worker_id);
      expect(d.candidates.length).toBeGreaterThanOrEqual(1);
      expect(d.prompt_blocks).toBe(r.sequence_hashes!.length);
    }
  });

  it("share the harness prompt's local hashes across sessions while the billing header changes every sequence hash", () => {
    const firsts = new Map<string, (typeof steady)[number] & { kind: "request" }>();
    for (const r of requests())
      if (r.harness === "claude_code" && !r.parent_trajectory_id && !firsts.has(r.session_id!))
        firsts.set(r.session_id!, r);
    const [a, b] = [...firsts.values()];
    expect(a!.local_hashes!.slice(1, 300)).toEqual(b!.local_hashes!.slice(1, 300));
    expect(a!.local_hashes![0]).not.toBe(b!.local_hashes![0]);
    expect(a!.sequence_hashes![299]).not.toBe(b!.sequence_hashes![299]);
  });

  it("include speculative-prefill warmups of one output token", () => {
    const warm = requests().filter((r) => r.agent_hints?.speculative_prefill && r.output_tokens === 1);
    expect(warm.length).toBeGreaterThan(10);
  });
});

describe("agents", () => {
  it("dispatch tools early, link them to the turn that called them and truncate outputs to the budget", () => {
    const requests = new Map(ofKind(steady, "request").map((r) => [r.request_id, r]));
    const tools = ofKind(steady, "tool");
    expect(tools.length).toBeGreaterThan(500);
    let early = 0;
    for (const t of tools) {
      const turn = requests.get(t.request_id!);
      expect(turn ?? t.ended_at! > T0 + 240_000).toBeTruthy();
      if (!turn) continue;
      expect(turn.session_id).toBe(t.session_id);
      if (t.dispatched_at! < turn.finished_at!) early++;
      expect(t.budget).toEqual({ unit: "tokens", limit: 10_000 });
      expect(t.output_tokens!).toBeLessThanOrEqual(10_000);
      if (t.truncated) expect(t.output_tokens).toBe(10_000);
    }
    expect(early / tools.length).toBeGreaterThan(0.3);
    expect(tools.some((t) => t.truncated)).toBe(true);
    const waits = tools.map((t) => t.ended_at! - t.started_at).sort((x, y) => x - y);
    expect(waits[Math.floor(waits.length * 0.99)]!).toBeGreaterThan(20 * waits[Math.floor(waits.length / 2)]!);
  });

  it("link reasoning spans to the tool call they precede", () => {
    const toolIds = new Set(ofKind(steady, "tool").map((t) => t.tool_call_id));
    const spans = ofKind(steady, "reasoning").filter((s) => s.tool_call_id);
    expect(spans.length).toBeGreaterThan(100);
    const linked = spans.filter((s) => toolIds.has(s.tool_call_id!)).length;
    expect(linked / spans.length).toBeGreaterThan(0.9);
  });

  it("run subagents as short trajectories with a parent that outlive them", () => {
    const requests = ofKind(steady, "request");
    const subs = requests.filter((r) => r.parent_trajectory_id);
    expect(subs.length).toBeGreaterThan(10);
    const lastOf = new Map<string, number>();
    const arrivals = new Map<string, number[]>();
    for (const r of requests) {
      lastOf.set(r.trajectory_id!, Math.max(lastOf.get(r.trajectory_id!) ?? 0, r.finished_at!));
      arrivals.set(r.trajectory_id!, [...(arrivals.get(r.trajectory_id!) ?? []), r.arrived_at]);
    }
    const ended = [
      ...new Set(subs.filter((s) => lastOf.get(s.trajectory_id!)! < T0 + 150_000).map((s) => s.trajectory_id!)),
    ];
    const parentOf = new Map(subs.map((s) => [s.trajectory_id!, s.parent_trajectory_id!]));
    const resumed = ended.filter((sub) => arrivals.get(parentOf.get(sub)!)!.some((t) => t >= lastOf.get(sub)!));
    expect(ended.length).toBeGreaterThan(3);
    expect(resumed.length / ended.length).toBeGreaterThan(0.95);
    const subInput = subs.reduce((s, r) => s + r.input_tokens, 0) / subs.length;
    const mainInput = requests
      .filter((r) => r.harness === "claude_code" && !r.parent_trajectory_id)
      .reduce((s, r, _, a) => s + r.input_tokens / a.length, 0);
    expect(subInput).toBeLessThan(mainInput);
  });
});

describe("determinism", () => {
  it("repeats byte for byte for a seed and start, and differs for another seed", () => {
    const a = JSON.stringify(runScenario({ scenario: "preamble", seconds: 90, seed: 3 }));
    const b = JSON.stringify(runScenario({ scenario: "preamble", seconds: 90, seed: 3 }));
    const c = JSON.stringify(runScenario({ scenario: "preamble", seconds: 90, seed: 4 }));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});

describe("policies in the engine", () => {
  it("apply a new version at the current instant, acknowledge it and stamp later requests", () => {
    const { sim, events } = makeSim({ scenario: "preamble" });
    sim.runUntil(T0 + 30_000);
    const ack = sim.applyPolicy("routing", 4, { overlap_credit: 2 });
    expect(ack).toEqual({ ok: true, kind: "routing", version: 4, status: "applied", applied_at: T0 + 30_000 });
    sim.runUntil(T0 + 60_000);
    const later = ofKind(events, "request").filter((r) => r.arrived_at > T0 + 30_000);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((r) => r.policy_versions?.routing === 4)).toBe(true);
    expect(
      ofKind(events, "route.decision")
        .filter((d) => d.ts > T0 + 30_000)
        .every((d) => d.overlap_credit === 2),
    ).toBe(true);
    expect(ofKind(events, "policy.ack")).toMatchObject([
      { target: "sim", policy_kind: "routing", version: 4, status: "applied" },
    ]);
    expect(sim.policies().routing).toMatchObject({ version: 4, applied_at: T0 + 30_000 });
  });

  it("leave busy workers out of routing unless every worker is busy", () => {
    const events = runScenario({
      scenario: "steady",
      seconds: 180,
      policies: { routing: { busy: { active_decode_blocks_threshold: 0.3 } } },
    });
    const total = ofKind(events, "worker.up")[0]!.kv_total_blocks;
    const busy = (c: { decode_blocks: number }) => c.decode_blocks / total > 0.3;
    let avoided = 0;
    for (const d of ofKind(events, "route.decision")) {
      const chosen = d.candidates.find((c) => c.worker_id === d.chosen_worker_id)!;
      if (d.candidates.some((c) => !busy(c))) expect(busy(chosen)).toBe(false);
      const cheapest = d.candidates.reduce((a, b) => (b.cost < a.cost ? b : a));
      if (busy(cheapest) && cheapest !== chosen) avoided++;
    }
    expect(avoided).toBeGreaterThan(2);
  });

  it("reject invalid documents, stale versions and changed documents under an applied version, keeping the previous", () => {
    const { sim, events } = makeSim({ scenario: "preamble" });
    sim.runUntil(T0 + 1_000);
    expect(sim.applyPolicy("autoscaling", 1, { decode: { kv_scale_down: 0.95 } })).toMatchObject({
      ok: false,
      status: "rejected",
      errors: [{ path: "decode.kv_scale_down", message: "must be below the scale-up threshold (0.9)" }],
    });
    expect(sim.applyPolicy("frontend", 2, { strip_anthropic_preamble: true }).ok).toBe(true);
    expect(sim.applyPolicy("frontend", 2, { strip_anthropic_preamble: true }).ok).toBe(true);
    expect(sim.applyPolicy("frontend", 1, {})).toMatchObject({ ok: false, errors: [{ path: "version" }] });
    expect(sim.applyPolicy("frontend", 2, {})).toMatchObject({ ok: false, errors: [{ path: "version" }] });
    expect(sim.policies().frontend.version).toBe(2);
    expect(sim.policies().autoscaling.version).toBe(0);
    const acks = ofKind(events, "policy.ack");
    expect(acks.map((a) => a.status)).toEqual(["rejected", "applied", "applied", "rejected", "rejected"]);
    expect(acks[0]!.message).toContain("decode.kv_scale_down");
  });
});
