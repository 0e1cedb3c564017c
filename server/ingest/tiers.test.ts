import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";
import { ingestBody } from "./ingest";
import { insertEvents } from "../../db/sqlite/ingest";
import { idKey } from "../../db/ingest/kv-rows";

let db: Db;
beforeEach(() => {
  db = testDb();
});

const M0 = T0 - (T0 % 60_000);
const store = (raws: Raw[]) => insertEvents(db, raws.map(parsed));
const all = (sql: string, ...args: unknown[]) => db.$client.prepare(sql).all(...args) as Record<string, unknown>[];
const stored = (id: string, ts: number, hashes: string[], o: Raw = {}) =>
  minimal["kv.stored"]({ id, ts, block_hashes: hashes, ...o });
const removed = (id: string, ts: number, hashes: string[], o: Raw = {}) =>
  minimal["kv.removed"]({ id, ts, block_hashes: hashes, ...o });

describe("storage tiers: kv events", () => {
  it("stores the tier and onboarded_from on each kv event (device when absent)", () => {
    store([
      stored("a", T0, ["1", "2"]),
      stored("b", T0, ["1"], { storage_tier: "host" }),
      stored("c", T0, ["1"], { onboarded_from: "host" }),
      removed("d", T0, ["2"], { reason: "offloaded" }),
    ]);
    const id = new Map(["a", "b", "c", "d"].map((k) => [idKey(k), k]));
    const rows = all("SELECT id_key, storage_tier, onboarded_from, reason FROM kv_events ORDER BY rowid");
    expect(rows.map(({ id_key, ...r }) => ({ id: id.get(id_key as number), ...r }))).toEqual([
      { id: "a", storage_tier: null, onboarded_from: null, reason: null },
      { id: "b", storage_tier: "host", onboarded_from: null, reason: null },
      { id: "c", storage_tier: null, onboarded_from: "host", reason: null },
      { id: "d", storage_tier: null, onboarded_from: null, reason: "offloaded" },
    ]);
  });

  const offloadThenOnboard: Raw[] = [
    stored("s1", M0 + 1_000, ["1", "2", "3", "4"]),
    removed("r1", M0 + 2_000, ["3", "4"], { reason: "offloaded" }),
    stored("s2", M0 + 2_000, ["3", "4"], { storage_tier: "host", parent_hash: "2" }),
    stored("s3", M0 + 61_000, ["3"], { onboarded_from: "host", parent_hash: "2" }),
    removed("r2", M0 + 61_000, ["3"], { storage_tier: "host", reason: "unknown" }),
    stored("s4", M0 + 62_000, ["9"], { storage_tier: "disk" }),
  ];

  it.each([
    ["one batch", () => store(offloadThenOnboard)],
    ["one batch per event", () => offloadThenOnboard.forEach((e) => store([e]))],
  ])("counts offloads, onboards and blocks per tier and minute (%s)", (_name, ingest) => {
    ingest();
    expect(
      all(
        "SELECT minute, tier, stored_blocks, removed_blocks, offloaded_blocks, onboarded_blocks, blocks FROM kv_tiers_1m WHERE worker_id = 'w1' ORDER BY minute, tier",
      ),
    ).toEqual([
      {
        minute: M0,
        tier: "device",
        stored_blocks: 4,
        removed_blocks: 2,
        offloaded_blocks: 0,
        onboarded_blocks: 0,
        blocks: 2,
      },
      {
        minute: M0,
        tier: "host",
        stored_blocks: 2,
        removed_blocks: 0,
        offloaded_blocks: 2,
        onboarded_blocks: 0,
        blocks: 2,
      },
      {
        minute: M0 + 60_000,
        tier: "device",
        stored_blocks: 1,
        removed_blocks: 0,
        offloaded_blocks: 0,
        onboarded_blocks: 1,
        blocks: 3,
      },
      {
        minute: M0 + 60_000,
        tier: "disk",
        stored_blocks: 1,
        removed_blocks: 0,
        offloaded_blocks: 1,
        onboarded_blocks: 0,
        blocks: 1,
      },
      {
        minute: M0 + 60_000,
        tier: "host",
        stored_blocks: 0,
        removed_blocks: 1,
        offloaded_blocks: 0,
        onboarded_blocks: 0,
        blocks: 1,
      },
    ]);
  });

  it("a duplicate event changes no counter; kv.cleared empties the device tier only", () => {
    store([stored("s1", T0, ["1", "2"]), stored("h1", T0, ["5"], { storage_tier: "host" })]);
    store([stored("s1", T0, ["1", "2"])]);
    store([minimal["kv.cleared"]({ id: "c1", ts: T0 + 1 })]);
    expect(all("SELECT tier, blocks FROM worker_tier_blocks ORDER BY tier")).toEqual([
      { tier: "device", blocks: 0 },
      { tier: "host", blocks: 1 },
    ]);
  });
});

describe("storage tiers: requests", () => {
  const req = (id: string, o: Raw) =>
    minimal.request({ id, request_id: id, worker_id: "w1", arrived_at: M0 + 5_000, ts: M0 + 5_000, ...o });

  it("stores per-tier cached and prefetched tokens, and rolls them up per minute and per worker", () => {
    store([
      req("a", {
        input_tokens: 1000,
        cached_tokens: 900,
        cached_tokens_by_tier: { device: 500, host: 300, disk: 100 },
        prefetched_tokens: 250,
      }),
      req("b", { input_tokens: 1000, cached_tokens: 700 }),
    ]);
    expect(
      all(
        "SELECT id, cached_device_tokens, cached_host_tokens, cached_disk_tokens, cached_shared_tokens, prefetched_tokens FROM requests ORDER BY id",
      ),
    ).toEqual([
      {
        id: "a",
        cached_device_tokens: 500,
        cached_host_tokens: 300,
        cached_disk_tokens: 100,
        cached_shared_tokens: 0,
        prefetched_tokens: 250,
      },
      {
        id: "b",
        cached_device_tokens: null,
        cached_host_tokens: null,
        cached_disk_tokens: null,
        cached_shared_tokens: null,
        prefetched_tokens: null,
      },
    ]);
    expect(
      all(
        "SELECT cached_tokens, cached_host_tokens, cached_disk_tokens, cached_shared_tokens, prefetched_tokens FROM requests_1m",
      ),
    ).toEqual([
      {
        cached_tokens: 1600,
        cached_host_tokens: 300,
        cached_disk_tokens: 100,
        cached_shared_tokens: 0,
        prefetched_tokens: 250,
      },
    ]);
    expect(
      all(
        "SELECT worker_id, minute, input_tokens, device_tokens, host_tokens, disk_tokens, shared_tokens, prefetched_tokens FROM request_tiers_1m",
      ),
    ).toEqual([
      {
        worker_id: "w1",
        minute: M0,
        input_tokens: 2000,
        device_tokens: 1200,
        host_tokens: 300,
        disk_tokens: 100,
        shared_tokens: 0,
        prefetched_tokens: 250,
      },
    ]);
  });

  it("through the ingest API: an unknown tier or a split that does not sum rejects that event alone", () => {
    const body = [
      stored("ok-1", T0, ["1"], { storage_tier: "host" }),
      stored("bad-tier", T0, ["2"], { storage_tier: "nvme" }),
      req("bad-sum", { cached_tokens: 800, cached_tokens_by_tier: { device: 100 } }),
      req("ok-2", { cached_tokens: 800, cached_tokens_by_tier: { device: 100, shared: 700 } }),
    ];
    const reply = ingestBody(db, JSON.stringify(body), "application/json");
    expect(reply).toMatchObject({ accepted: 2, rejected: 2 });
    expect(reply.items.filter((i) => i.status === "rejected").map((i) => [i.id, i.error])).toEqual([
      ["bad-tier", expect.stringContaining("storage_tier: must be one of device, host, disk, shared")],
      ["bad-sum", "cached_tokens_by_tier: must sum to cached_tokens (800), got 100"],
    ]);
  });
});
