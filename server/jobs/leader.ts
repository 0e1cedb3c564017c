// Leader election over a lease row: the process that holds the lease runs the background work (started on winning
// it, stopped on losing it); every process keeps serving pages and ingest. Decisions are leader-lease.ts's. Time is
// the store's clock: PostgreSQL's own (so processes on hosts whose clocks disagree still agree), the host's on SQLite.
import crypto from "node:crypto";
import os from "node:os";
import { isBusy } from "../../db/sqlite/client";
import type { LeaseRow } from "../../db/rows/leases";
import { readLease, releaseLease, replaceLease } from "../../db/store/leases";
import type { Store } from "../../db/store/store";
import { errorMessage, log } from "../observability/logger";
import { LEASE_TIMING, leaseClaim, leaseStep, type LeaseOutcome, type LeaseTiming } from "./leader-lease";

/** The lease background work runs under. */
export const BACKGROUND_LEASE = "background";

/** Start the work; resolves (or returns) the function that stops it. */
export type LeaderWork = () => (() => Promise<void> | void) | Promise<() => Promise<void> | void>;

export type LeaderOptions = {
  holder: string;
  name?: string;
  timing?: LeaseTiming;
  /** The clock the lease is compared against (tests); default the store's (Store.clock). */
  now?: () => number;
};

export type Leader = {
  /** Whether this process runs the work now. */
  leading: () => boolean;
  /** Stop the work if running and release the lease (a follower then takes it at its next look). */
  stop: () => Promise<void>;
};

/** A process id for the lease: host, pid and a random part (a pid is reused across restarts and containers). */
export function processId(): string {
  return `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;
}

/** One tick's I/O: read the row, write the claim if there is one, and say what happened. */
async function observe(s: Store, name: string, holder: string, now: number, t: LeaseTiming): Promise<LeaseOutcome> {
  const row = await readLease(s, name);
  const claim = leaseClaim(row, holder, now, t);
  if (claim === null) return { kind: "held", lease: row! };
  if (await replaceLease(s, name, row, claim)) return { kind: "won", lease: claim };
  const after = await readLease(s, name);
  return after && after.holder !== holder && after.expiresAt > now
    ? { kind: "held", lease: after }
    : { kind: "failed" };
}

/**
 * The store's clock, and an estimate of it when the store does not answer: this process's clock plus the offset
 * seen at the last answer (a holder cut off from PostgreSQL still knows when its lease runs out there).
 */
function leaseClock(s: Store, injected: (() => number) | undefined) {
  if (injected) return { read: async () => injected(), estimate: injected };
  let offset = 0;
  return {
    read: async () => {
      const at = await s.clock();
      offset = at - Date.now();
      return at;
    },
    estimate: () => Date.now() + offset,
  };
}

/**
 * Take part in the election for `name` (one tick now, then as leaseStep says): `work` is started when this process
 * wins the lease and stopped when it loses it; a start waits for the previous stop to finish.
 */
export function startLeader(store: Store, work: LeaderWork, opts: LeaderOptions): Leader {
  const name = opts.name ?? BACKGROUND_LEASE;
  const t = opts.timing ?? LEASE_TIMING;
  const clock = leaseClock(store, opts.now);
  let state = { leading: false, expiresAt: 0 };
  let stopWork: (() => Promise<void> | void) | null = null;
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  let deadline: NodeJS.Timeout | null = null;
  let stopped = false;
  const status = statusHolder();
  status.current = { holder: opts.holder, leading: false };

  const change = (to: "start" | "stop") => {
    chain = chain
      .then(async () => {
        if (to === "start") {
          if (stopped || stopWork) return;
          stopWork = await work();
        } else if (stopWork) {
          const s = stopWork;
          stopWork = null;
          await s();
        }
      })
      .catch((err) => log().error({ err: errorMessage(err) }, `leader: ${to} of background work failed`));
  };

  // A store that does not answer at all (a lost network on PostgreSQL) must not stall the ticks: a look gives up
  // after a renew period, and a holder's work stops at its deadline even while a look is still waiting.
  const look = async (): Promise<{ at: number; outcome: LeaseOutcome }> => {
    let giveUp: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      giveUp = setTimeout(() => reject(new Error(`no answer within ${t.renewMs} ms`)), t.renewMs);
    });
    try {
      const at = await Promise.race([clock.read(), late]);
      return { at, outcome: await Promise.race([observe(store, name, opts.holder, at, t), late]) };
    } catch (err) {
      // A SQLite file whose write lock an ingest batch held past busy_timeout answers late, not never: the next tick
      // (a second away) asks again, and only a lease that cannot be renewed in time is worth a warning (armDeadline).
      if (isBusy(err)) log().debug({ err: errorMessage(err) }, "leader lease: the store was busy");
      else log().warn({ err: errorMessage(err) }, "leader lease: the store did not answer");
      return { at: clock.estimate(), outcome: { kind: "failed" } };
    } finally {
      clearTimeout(giveUp);
    }
  };

  const lose = (why: string) => {
    state = { leading: false, expiresAt: 0 };
    status.current = { holder: opts.holder, leading: false };
    log().warn({ holder: opts.holder }, why);
    change("stop");
  };

  /** While leading: stop the work marginMs before the lease written last expires, unless a renewal comes first. */
  const armDeadline = () => {
    if (deadline) clearTimeout(deadline);
    deadline = null;
    if (!state.leading) return;
    deadline = setTimeout(
      () => {
        deadline = null;
        if (state.leading && !stopped) lose("leader: the lease could not be renewed in time, background work stopped");
      },
      Math.max(0, state.expiresAt - t.marginMs - clock.estimate()),
    );
    deadline.unref();
  };

  const tick = async () => {
    timer = null;
    if (stopped) return;
    const { at, outcome } = await look();
    if (stopped) {
      // stop() came during this look: a lease just won is released by stop(), its work never started.
      if (outcome.kind === "won") state = { leading: true, expiresAt: outcome.lease.expiresAt };
      return;
    }
    const step = leaseStep(state, outcome, at, t);
    state = { leading: step.leading, expiresAt: step.expiresAt };
    status.current = { holder: opts.holder, leading: step.leading };
    if (step.change === "start") log().info({ holder: opts.holder }, "leader: this process leads background work");
    if (step.change === "stop") log().warn({ holder: opts.holder }, "leader: lease lost, background work stopped");
    if (step.change) change(step.change);
    armDeadline();
    timer = setTimeout(() => (inFlight = tick()), step.nextInMs);
    timer.unref();
  };
  inFlight = tick();

  return {
    leading: () => state.leading,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (deadline) clearTimeout(deadline);
      await inFlight;
      change("stop");
      await chain;
      if (state.leading) {
        try {
          await releaseLease(store, name, opts.holder);
        } catch (err) {
          log().warn({ err: errorMessage(err) }, "leader: the lease could not be released (it expires by itself)");
        }
      }
      state = { leading: false, expiresAt: 0 };
      status.current = { holder: opts.holder, leading: false };
    },
  };
}

const statusKey = Symbol.for("switchyard.leader");
type StatusHolder = { current: { holder: string; leading: boolean } | null };

function statusHolder(): StatusHolder {
  const g = globalThis as { [statusKey]?: StatusHolder };
  return (g[statusKey] ??= { current: null });
}

/** This process's id and whether it leads (shared with Next's route bundles); null when it takes no part. */
export function leaderStatus(): { holder: string; leading: boolean } | null {
  return statusHolder().current;
}

/** The lease as /api/health shows it: its holder and since while it is live by the store's clock, else null. */
export async function liveLease(store: Store, name = BACKGROUND_LEASE): Promise<LeaseRow | null> {
  const [row, now] = await Promise.all([readLease(store, name), store.clock()]);
  return row !== null && row.expiresAt > now ? row : null;
}
