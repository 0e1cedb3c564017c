import { describe, expect, it } from "vitest";
import type { TelemetryEventInput } from "../ingest/events";
import { BlockList } from "./block-list";
import { BlockPool, EVICT_AGENT_END, OwnedBlocks, type RetentionClass } from "./block-pool";
import { cachedByTier, ClusterTiers, DEFAULT_TIER_BANDWIDTH, TIER_CREDIT, type TierHit } from "./kv-tiers";
import { hashList, PrefixIndex } from "./prefix-index";
import { DEFAULT_ENGINE_TIMING, MODEL_KV_BYTES_PER_TOKEN, prefillMs } from "./timing";
import type { SimRequest } from "./types";

const BS = 64;
const toHost: RetentionClass = {
  name: "ctx",
  priority: 50,
  ttlMs: 0,
  pin: false,
  evictOn: 0,
  offload: { to: "host", ttlMs: 0 },
};
const toShared: RetentionClass = { ...toHost, name: "shared-ctx", offload: { to: "shared", ttlMs: 0 } };
const drop: RetentionClass = { ...toHost, name: "drop", offload: null };

function setup(opts: { capacity?: number; host?: number; shared?: number } = {}) {
  const events: TelemetryEventInput[] = [];
  const core = {
    now: 1_000,
    emit: (e: unknown) => events.push({ id: String(events.length), ...(e as object) } as TelemetryEventInput),
  };
  const tiers = new ClusterTiers(
    core,
    { host_blocks: opts.host ?? 100, disk_blocks: 0, shared_blocks: opts.shared ?? 0 },
    BS,
    MODEL_KV_BYTES_PER_TOKEN,
  );
  const index = new PrefixIndex();
  const w = { id: "w1", slot: 0, pool: new BlockPool(opts.capacity ?? 4, index, 0) };
  tiers.attach(w);
  return { tiers, w, events, core };
}

function request(n: number, cls: RetentionClass, from = 0): SimRequest {
  const view = hashList(Array.from({ length: n }, (_, i) => `h${from + i}`));
  return {
    view,
    nBlocks: n,
    classes: [cls],
    segments: new Array(n).fill(0),
    owner: new OwnedBlocks(),
    sessionId: "s1",
  } as unknown as SimRequest;
}

/** Store blocks [from, to) of a request on device and release them (cached, evictable). */
function compute(w: ReturnType<typeof setup>["w"], req: SimRequest, from: number, to: number) {
  const out = new BlockList();
  w.pool.makeRoom(to - from);
  w.pool.store(req.view, from, to, req.classes, req.segments, out, [], req.owner);
  w.pool.release(out, 0);
}

describe("tier bandwidth and onboarding time", () => {
  const { tiers } = setup();
  it.each([
    ["host", 1, 0.65],
    ["disk", 2, 3.25],
    ["shared", 3, 8.13],
  ])("one 64-token block of the modelled model from %s takes %d ms", (_tier, code, ms) => {
    expect(tiers.onboardMs(code as number, 1)).toBeCloseTo(ms, 2);
  });

  it("states its defaults: host 25 GB/s, disk 5, shared 2; credits 1, 0.75, 0.25, 0.1", () => {
    expect(DEFAULT_TIER_BANDWIDTH).toEqual({ host: 25e9, disk: 5e9, shared: 2e9 });
    expect(TIER_CREDIT).toEqual([1, 0.75, 0.25, 0.1]);
  });

  it("a host hit of a 52k-token prefix is faster than recomputing it and slower than a device hit", () => {
    const blocks = Math.floor(52_000 / BS);
    const host = tiers.onboardMs(1, blocks);
    let recompute = 0;
    for (let left = blocks * BS; left > 0; left -= DEFAULT_ENGINE_TIMING.maxBatchedTokens)
      recompute += prefillMs(DEFAULT_ENGINE_TIMING, Math.min(left, DEFAULT_ENGINE_TIMING.maxBatchedTokens));
    expect(host).toBeGreaterThan(0);
    expect(host).toBeLessThan(0.8 * recompute);
    // At the default bandwidths disk and shared storage are slower than recomputing for this model.
    expect(tiers.onboardMs(2, blocks)).toBeGreaterThan(recompute);
  });
});

describe("offload, lookup along the chain, onboarding", () => {
  it("offloads a capacity eviction to the class's tier (reason offloaded) and drops one without offload", () => {
    const { w, tiers, events } = setup({ capacity: 2, shared: 10 });
    compute(w, request(1, toHost, 0), 0, 1);
    compute(w, request(1, drop, 1), 0, 1);
    w.pool.makeRoom(2);
    const removed = w.pool.drainRemoved();
    expect(removed).toEqual([
      ["capacity", ["h1"]],
      ["offloaded", ["h0"]],
    ]);
    tiers.flush();
    expect(events).toMatchObject([{ kind: "kv.stored", storage_tier: "host", block_hashes: ["h0"], worker_id: "w1" }]);
    expect(tiers.sizes()).toEqual({ host: 1, disk: 0, shared: 0 });
  });

  it("finds each block on the fastest tier that holds it and stops where none does; credits the router per tier", () => {
    const { w, tiers } = setup({ capacity: 8, shared: 10 });
    const req = request(6, toHost);
    compute(w, req, 0, 4);
    compute(w, request(6, toShared), 4, 5);
    // Everything goes down a tier (blocks 0-3 to host, 4 to shared), then blocks 0-1 are computed on device again.
    w.pool.makeRoom(8);
    compute(w, req, 0, 2);
    w.pool.drainRemoved();
    const onDevice = w.pool.match(req.view.seq, 6);
    const hit = tiers.plan(w, req, onDevice, null);
    expect(onDevice).toBe(2);
    expect(Array.from(hit.tiers)).toEqual([1, 1, 3]);
    expect(hit.onboardMs).toBeCloseTo(2 * 0.65 + 8.13, 1);
    expect(tiers.creditedOverlap(w, req, onDevice)).toBeCloseTo(2 + 2 * 0.75 + 0.1);
  });

  it("onboards the planned blocks to device as kv.stored with onboarded_from, up to the room it can make", () => {
    const { w, tiers, events } = setup({ capacity: 4 });
    const req = request(4, toHost);
    compute(w, req, 0, 4);
    w.pool.makeRoom(4);
    compute(w, req, 0, 2);
    w.pool.drainRemoved();
    tiers.flush();
    events.length = 0;
    const hit = tiers.plan(w, req, 2, null);
    expect(Array.from(hit.tiers)).toEqual([1, 1]);
    const marks = new Uint8Array(4);
    expect(tiers.onboard(w, req, hit.from, hit.tiers, marks)).toBe(2);
    expect(Array.from(marks)).toEqual([0, 0, 1, 1]);
    expect(w.pool.match(req.view.seq, 4)).toBe(4);
    expect(events).toMatchObject([
      { kind: "kv.stored", worker_id: "w1", block_hashes: ["h2", "h3"], parent_hash: "h1", onboarded_from: "host" },
    ]);
    expect(tiers.counters.onboarded).toEqual([0, 2, 0, 0]);
  });

  it("drops an ended agent's blocks from the lower tiers when their class evicts on agent end", () => {
    const { w, tiers, events } = setup({ capacity: 4 });
    const ending: RetentionClass = { ...toHost, name: "agent-state", evictOn: EVICT_AGENT_END };
    const req = request(4, toHost);
    req.classes = [toHost, ending];
    req.segments = [0, 0, 1, 1];
    compute(w, req, 0, 4);
    w.pool.makeRoom(4);
    tiers.flush();
    events.length = 0;
    const chain = { seq: req.view.seq, n: 4, classes: req.classes, segments: req.segments };
    expect(tiers.dropOnEnd(chain, "agent_end")).toBe(2);
    expect(tiers.dropOnEnd(chain, "session_end")).toBe(0);
    tiers.flush();
    expect(events).toMatchObject([
      { kind: "kv.removed", storage_tier: "host", reason: "agent_end", block_hashes: ["h2", "h3"] },
    ]);
    expect(tiers.sizes().host).toBe(2);
  });

  it("splits a request's cached tokens by the tier of each block and counts prefetched ones (a subset of device)", () => {
    const hit: TierHit = {
      from: 2,
      tiers: Uint8Array.from([1, 1, 3]),
      prefetched: Uint8Array.from([0, 1, 0, 0, 0]),
      onboardMs: 0,
    };
    expect(cachedByTier({ cachedTokens: 5 * BS }, hit, BS)).toEqual({
      byTier: { device: 2 * BS, host: 2 * BS, disk: 0, shared: BS },
      prefetched: BS,
    });
    // A hit cut short (the chain was evicted before admission) counts only the blocks it used.
    expect(cachedByTier({ cachedTokens: 3 * BS }, hit, BS).byTier).toEqual({
      device: 2 * BS,
      host: BS,
      disk: 0,
      shared: 0,
    });
  });
});
