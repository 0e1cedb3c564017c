import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readLease } from "../../db/store/leases";
import { POSTGRES, type TwoStores } from "../../test/stores";
import { log } from "../observability/logger";
import { LEASE_TIMING } from "./leader-lease";
import { startLeader, type Leader } from "./leader";
import { leaseRowCases } from "./lease-rows.cases";

// The leader on one PostgreSQL shared by two processes (two pools in this test), in real time and with the real
// timing: the lease is compared against the database's clock, not each process's.

leaseRowCases(POSTGRES);

const until = async (what: () => boolean, withinMs: number): Promise<number> => {
  const t0 = Date.now();
  while (!what()) {
    if (Date.now() - t0 > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - t0;
};

describe.skipIf(POSTGRES.skip)("startLeader: two processes on one PostgreSQL", () => {
  let s: TwoStores;
  let leaders: Leader[];
  let events: string[];
  beforeEach(async () => {
    s = await POSTGRES.open();
    leaders = [];
    events = [];
    vi.spyOn(log(), "info").mockImplementation(() => {});
    vi.spyOn(log(), "warn").mockImplementation(() => {});
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const l of leaders) await l.stop();
    await s.close();
  });

  const start = (name: string, store = name === "p0" ? s.a : s.b) => {
    const l = startLeader(
      store,
      () => {
        events.push(`${name} start`);
        return () => void events.push(`${name} stop`);
      },
      { holder: name },
    );
    leaders.push(l);
    return l;
  };

  it("elects exactly one; when it stops renewing, the other leads within 15 s and never both at once", async () => {
    const a = start("p0");
    await until(() => a.leading(), 5_000);
    const b = start("p1");
    await new Promise((r) => setTimeout(r, LEASE_TIMING.renewMs + 500));
    expect([a.leading(), b.leading()]).toEqual([true, false]);
    expect(events).toEqual(["p0 start"]);
    const row = (await readLease(s.b, "background"))!;
    expect(row.holder).toBe("p0");
    // Written in the database's time: a renewal's expiry is its clock at the write plus the TTL.
    expect(Math.abs(row.expiresAt - LEASE_TIMING.ttlMs - (await s.b.clock()))).toBeLessThan(
      LEASE_TIMING.renewMs + 1_000,
    );

    // p0's connection is gone (a process cut off from the database, or killed): its renewals stop.
    await s.cutA();
    const cut = Date.now();
    let both = false;
    const took = await until(() => {
      if (a.leading() && b.leading()) both = true;
      return b.leading();
    }, 15_000);
    expect(both).toBe(false);
    expect(a.leading()).toBe(false);
    expect(took).toBeLessThanOrEqual(15_000);
    expect(Date.now() - cut).toBeLessThanOrEqual(15_000);
    expect(events).toEqual(["p0 start", "p0 stop", "p1 start"]);
  }, 40_000);

  it("a process whose own clock is an hour ahead neither takes a live lease nor outlasts it: the database's clock counts", async () => {
    const a = start("p0");
    await until(() => a.leading(), 5_000);
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + 3_600_000);
    const b = start("p1");
    // Compared with its own clock, p1 would see p0's lease an hour expired and take it at its first look.
    await new Promise((r) => setTimeout(r, LEASE_TIMING.renewMs * 2));
    expect([a.leading(), b.leading()]).toEqual([true, false]);
    expect((await readLease(s.b, "background"))!.holder).toBe("p0");
    // A clean stop releases the lease; p1 takes it within a renew period and writes it in the database's time.
    await a.stop();
    await until(() => b.leading(), LEASE_TIMING.renewMs + 1_000);
    const row = (await readLease(s.a, "background"))!;
    expect(row.holder).toBe("p1");
    expect(Math.abs(row.expiresAt - LEASE_TIMING.ttlMs - (await s.a.clock()))).toBeLessThan(
      LEASE_TIMING.renewMs + 1_000,
    );
  }, 40_000);
});
