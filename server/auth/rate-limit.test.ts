import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../db/client";
import { loginFailures } from "../../db/schema";
import { testDb } from "../../test/db";
import { limitDecision, LoginLimiter, pruneLoginFailures, type RecentFailures } from "./rate-limit";

const T = 1_800_000_000_000;
const cfg = { windowMs: 60_000, perAccount: 3, perAddress: 5 };
const none: RecentFailures = { count: 0, oldest: null };

describe("limitDecision", () => {
  it.each<[string, RecentFailures, RecentFailures, { who: string; retryAfter: number } | null]>([
    ["no failures", none, none, null],
    ["account below its limit", { count: 2, oldest: T - 10_000 }, none, null],
    [
      "account at its limit: wait until the oldest leaves",
      { count: 3, oldest: T - 10_000 },
      none,
      { who: "this account", retryAfter: 50 },
    ],
    [
      "account over its limit (two processes counted at once)",
      { count: 7, oldest: T - 59_500 },
      none,
      { who: "this account", retryAfter: 1 },
    ],
    ["address at its limit", none, { count: 5, oldest: T - 1 }, { who: "your address", retryAfter: 60 }],
    [
      "both at their limit: the account is named",
      { count: 3, oldest: T },
      { count: 5, oldest: T },
      { who: "this account", retryAfter: 60 },
    ],
    [
      "a count without an oldest time (bad row): the whole window",
      { count: 3, oldest: null },
      none,
      { who: "this account", retryAfter: 60 },
    ],
    [
      "an oldest time in the future (clock skew): at most window + skew",
      { count: 3, oldest: T + 30_000 },
      none,
      { who: "this account", retryAfter: 90 },
    ],
    [
      "an oldest time already out of the window: at least one second",
      { count: 3, oldest: T - 120_000 },
      none,
      { who: "this account", retryAfter: 1 },
    ],
    ["a negative count (bad row) blocks nothing", { count: -4, oldest: T }, { count: -1, oldest: T }, null],
  ])("%s", (_, account, address, want) => {
    const got = limitDecision(account, address, T, cfg);
    if (want === null) return expect(got).toBeNull();
    expect(got?.retryAfter).toBe(want.retryAfter);
    expect(got?.message).toContain(`for ${want.who}.`);
  });

  it.each([
    [1, "1 minute"],
    [60, "1 minute"],
    [61, "2 minutes"],
    [900, "15 minutes"],
  ])("a wait of %i s reads %s", (seconds, words) => {
    const got = limitDecision({ count: 3, oldest: T + seconds * 1000 - cfg.windowMs }, none, T, cfg);
    expect(got?.message).toBe(`Too many failed sign-in attempts for this account. Try again in ${words}.`);
  });
});

describe("LoginLimiter over the database", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const twoProcesses = (): [Db, Db] => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-limit-"));
    dirs.push(dir);
    const file = path.join(dir, "db.sqlite");
    return [openDb(file), openDb(file)];
  };

  it("a limit holds across processes sharing the database: failures on either count for both", () => {
    const [a, b] = twoProcesses();
    const [la, lb] = [new LoginLimiter(a, cfg), new LoginLimiter(b, cfg)];
    la.fail("ann", "10.0.0.1", T);
    lb.fail("ann", "10.0.0.2", T + 1);
    expect(la.check("ann", "10.0.0.3", T + 2)).toBeNull();
    la.fail("ann", "10.0.0.3", T + 2);
    expect(lb.check("ann", "10.0.0.4", T + 3)?.message).toMatch(/for this account/);
    expect(la.check("ann", "10.0.0.4", T + 3)?.retryAfter).toBe(60);
    // A success on one process clears the account on the other.
    lb.succeed("ann");
    expect(la.check("ann", "10.0.0.4", T + 4)).toBeNull();
    a.$client.close();
    b.$client.close();
  });

  it("failures in the same millisecond add up (none is lost to the key)", () => {
    const db = testDb();
    const l = new LoginLimiter(db, cfg);
    for (let i = 0; i < 3; i++) l.fail("ann", "a", T);
    expect(l.check("ann", "b", T)?.message).toMatch(/for this account/);
    expect(db.select().from(loginFailures).all()).toEqual(
      expect.arrayContaining([
        { key: "a:ann", at: T, n: 3 },
        { key: "i:a", at: T, n: 3 },
      ]),
    );
  });

  it("a failure drops its keys' failures that left the window; housekeeping drops everyone's", () => {
    const db = testDb();
    const l = new LoginLimiter(db, cfg);
    l.fail("ann", "a", T);
    l.fail("bob", "b", T);
    l.fail("ann", "a", T + cfg.windowMs + 1);
    expect(
      db
        .select()
        .from(loginFailures)
        .all()
        .map((r) => `${r.key}@${r.at - T}`)
        .sort(),
    ).toEqual([`a:ann@${cfg.windowMs + 1}`, "a:bob@0", `i:a@${cfg.windowMs + 1}`, "i:b@0"]);
    expect(pruneLoginFailures(db, T + cfg.windowMs + 1, cfg)).toBe(2);
    expect(db.select().from(loginFailures).all()).toHaveLength(2);
  });

  it("a failure exactly one window old no longer counts", () => {
    const l = new LoginLimiter(testDb(), cfg);
    for (let i = 0; i < 3; i++) l.fail("ann", "a", T);
    expect(l.check("ann", "a", T + cfg.windowMs - 1)).not.toBeNull();
    expect(l.check("ann", "a", T + cfg.windowMs)).toBeNull();
  });
});
