import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openDb, type Db } from "../../db/sqlite/client";
import { readLease, replaceLease } from "../../db/store/leases";
import { sqliteStore } from "../../db/store/store";
import { SQLITE } from "../../test/stores";
import { log } from "../observability/logger";
import { LEASE_TIMING } from "./leader-lease";
import { leaderStatus, processId, startLeader, type Leader } from "./leader";
import { leaseRowCases } from "./lease-rows.cases";

const T = 1_800_000_000_000;

leaseRowCases(SQLITE);

describe("process ids", () => {
  it("process ids differ between two processes on one host and name the host and pid", () => {
    const a = processId();
    expect(a).toMatch(
      new RegExp(`^${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:${process.pid}:[0-9a-f]{8}$`),
    );
    expect(processId()).not.toBe(a);
  });
});

describe("startLeader: two processes on one database file", () => {
  let dir: string;
  let dbs: Db[];
  let leaders: Leader[];
  let events: string[];

  beforeEach(() => {
    vi.useFakeTimers({ now: T });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-leader-"));
    const file = path.join(dir, "db.sqlite");
    dbs = [openDb(file), openDb(file)];
    leaders = [];
    events = [];
    vi.spyOn(log(), "info").mockImplementation(() => {});
    vi.spyOn(log(), "warn").mockImplementation(() => {});
  });

  afterEach(async () => {
    for (const l of leaders) await l.stop();
    for (const db of dbs) if (db.$client.open) db.$client.close();
    vi.useRealTimers();
    vi.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = (i: number) => {
    const name = `p${i}`;
    const l = startLeader(
      sqliteStore(dbs[i]!),
      () => {
        events.push(`${name} start @${Date.now() - T}`);
        return () => void events.push(`${name} stop @${Date.now() - T}`);
      },
      { holder: name },
    );
    leaders.push(l);
    return l;
  };

  it("the first process leads and runs the work; the second follows and runs nothing", async () => {
    const [a, b] = [start(0), start(1)];
    await vi.advanceTimersByTimeAsync(60_000);
    expect(a.leading()).toBe(true);
    expect(b.leading()).toBe(false);
    expect(events).toEqual(["p0 start @0"]);
    expect(await readLease(sqliteStore(dbs[1]!), "background")).toMatchObject({ holder: "p0", since: T });
    expect((await readLease(sqliteStore(dbs[1]!), "background"))!.expiresAt).toBeGreaterThan(Date.now());
  });

  it("when the leader dies, it stops its work before the lease expires and the other takes over within 15 s", async () => {
    const [a, b] = [start(0), start(1)];
    await vi.advanceTimersByTimeAsync(10_000);
    const lastRenewal = (await readLease(sqliteStore(dbs[1]!), "background"))!.expiresAt - LEASE_TIMING.ttlMs;
    // The leader can no longer reach the store (its connection is gone): its renewals fail.
    dbs[0]!.$client.close();
    const died = Date.now();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(a.leading()).toBe(false);
    expect(b.leading()).toBe(true);
    const at = (e: string) => Number(/@(\d+)/.exec(events.find((x) => x.startsWith(e))!)![1]) + T;
    expect(at("p0 stop")).toBeLessThan(lastRenewal + LEASE_TIMING.ttlMs);
    expect(at("p1 start")).toBeGreaterThanOrEqual(lastRenewal + LEASE_TIMING.ttlMs);
    expect(at("p1 start") - died).toBeLessThanOrEqual(15_000);
    expect(events.map((e) => e.split(" @")[0])).toEqual(["p0 start", "p0 stop", "p1 start"]);
  });

  it("a lease look that finds the file's write lock held (an ingest batch) tries again at the next tick, no warning", async () => {
    const warn = vi.mocked(log().warn);
    const file = dbs[0]!.$client.name;
    const impatient = openDb(file, 0);
    dbs.push(impatient);
    dbs[1]!.$client.exec("BEGIN IMMEDIATE");
    const a = startLeader(sqliteStore(impatient), () => () => {}, { holder: "p0" });
    leaders.push(a);
    await vi.advanceTimersByTimeAsync(400);
    expect(a.leading()).toBe(false);
    dbs[1]!.$client.exec("COMMIT");
    await vi.advanceTimersByTimeAsync(1_200);
    expect(a.leading()).toBe(true);
    expect(warn.mock.calls.filter((c) => String(c[1]).includes("did not answer"))).toEqual([]);
  });

  it("a leader whose store stops answering (no error, no reply) still stops its work before its lease expires", async () => {
    let hang = false;
    const base = sqliteStore(dbs[0]!);
    const hanging = { ...base, clock: () => (hang ? new Promise<number>(() => {}) : base.clock()) };
    const a = startLeader(
      hanging,
      () => {
        events.push(`p0 start @${Date.now() - T}`);
        return () => void events.push(`p0 stop @${Date.now() - T}`);
      },
      { holder: "p0" },
    );
    leaders.push(a);
    const b = start(1);
    await vi.advanceTimersByTimeAsync(10_000);
    const lastRenewal = (await readLease(sqliteStore(dbs[1]!), "background"))!.expiresAt - LEASE_TIMING.ttlMs;
    hang = true;
    await vi.advanceTimersByTimeAsync(20_000);
    expect([a.leading(), b.leading()]).toEqual([false, true]);
    const at = (e: string) => Number(/@(\d+)/.exec(events.find((x) => x.startsWith(e))!)![1]) + T;
    expect(at("p0 stop")).toBeLessThanOrEqual(lastRenewal + LEASE_TIMING.ttlMs - LEASE_TIMING.marginMs);
    expect(at("p1 start")).toBeGreaterThanOrEqual(lastRenewal + LEASE_TIMING.ttlMs);
    expect(events.map((e) => e.split(" @")[0])).toEqual(["p0 start", "p0 stop", "p1 start"]);
    // Stopping waits for the look in flight, which gives up after a renew period.
    const stopping = a.stop();
    await vi.advanceTimersByTimeAsync(LEASE_TIMING.renewMs);
    await stopping;
  });

  it("a leader that stops cleanly releases the lease: the other takes over within one renew period", async () => {
    const [a, b] = [start(0), start(1)];
    await vi.advanceTimersByTimeAsync(5_000);
    const stopped = Date.now();
    await a.stop();
    await vi.advanceTimersByTimeAsync(LEASE_TIMING.renewMs);
    expect(b.leading()).toBe(true);
    const started = Number(/@(\d+)/.exec(events.at(-1)!)![1]) + T;
    expect(started - stopped).toBeLessThanOrEqual(LEASE_TIMING.renewMs);
    expect(events.map((e) => e.split(" @")[0])).toEqual(["p0 start", "p0 stop", "p1 start"]);
  });

  it("a leader stopped during its first look leaves no lease behind and starts no work", async () => {
    const a = start(0);
    await a.stop();
    expect(await readLease(sqliteStore(dbs[1]!), "background")).toBeNull();
    expect(a.leading()).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(events).toEqual([]);
  });

  it("a stalled leader (its event loop blocked past the TTL) loses the lease to the other and stops", async () => {
    const [a, b] = [start(0), start(1)];
    await vi.advanceTimersByTimeAsync(1_000);
    // A third process took the lease as if p0's had expired unseen: p0's next renewal finds another holder.
    const row = (await readLease(sqliteStore(dbs[1]!), "background"))!;
    await replaceLease(sqliteStore(dbs[1]!), "background", row, {
      holder: "p9",
      since: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    await vi.advanceTimersByTimeAsync(LEASE_TIMING.renewMs);
    expect(a.leading()).toBe(false);
    expect(events).toContain(`p0 stop @${LEASE_TIMING.renewMs}`);
    expect(b.leading()).toBe(false);
    expect(events).toEqual(["p0 start @0", `p0 stop @${LEASE_TIMING.renewMs}`]);
    expect(leaderStatus()).toEqual({ holder: "p1", leading: false });
  });
});
