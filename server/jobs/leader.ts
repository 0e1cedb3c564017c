// Leader election over a lease row: the process that holds the lease runs the background work (started on winning
// it, stopped on losing it); every process keeps serving pages and ingest. Decisions are leader-lease.ts's.
import crypto from "node:crypto";
import os from "node:os";
import type { Db } from "../../db/client";
import { readLease, releaseLease, replaceLease } from "../../db/queries/leases";
import type { LeaseRow } from "../../db/rows/leases";
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
function observe(db: Db, name: string, holder: string, now: number, t: LeaseTiming): LeaseOutcome {
  try {
    const row = readLease(db, name);
    const claim = leaseClaim(row, holder, now, t);
    if (claim === null) return { kind: "held", lease: row! };
    if (replaceLease(db, name, row, claim)) return { kind: "won", lease: claim };
    const after = readLease(db, name);
    return after && after.holder !== holder && after.expiresAt > now
      ? { kind: "held", lease: after }
      : { kind: "failed" };
  } catch (err) {
    log().warn({ err: errorMessage(err) }, "leader lease: the store did not answer");
    return { kind: "failed" };
  }
}

/**
 * Take part in the election for `name` (one tick now, then as leaseStep says): `work` is started when this process
 * wins the lease and stopped when it loses it; a start waits for the previous stop to finish.
 */
export function startLeader(db: Db, work: LeaderWork, opts: LeaderOptions): Leader {
  const name = opts.name ?? BACKGROUND_LEASE;
  const t = opts.timing ?? LEASE_TIMING;
  const now = opts.now ?? Date.now;
  let state = { leading: false, expiresAt: 0 };
  let stopWork: (() => Promise<void> | void) | null = null;
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
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

  const tick = () => {
    timer = null;
    if (stopped) return;
    const at = now();
    const step = leaseStep(state, observe(db, name, opts.holder, at, t), at, t);
    state = { leading: step.leading, expiresAt: step.expiresAt };
    status.current = { holder: opts.holder, leading: step.leading };
    if (step.change === "start") log().info({ holder: opts.holder }, "leader: this process leads background work");
    if (step.change === "stop") log().warn({ holder: opts.holder }, "leader: lease lost, background work stopped");
    if (step.change) change(step.change);
    timer = setTimeout(tick, step.nextInMs);
    timer.unref();
  };
  tick();

  return {
    leading: () => state.leading,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      change("stop");
      await chain;
      if (state.leading) {
        try {
          releaseLease(db, name, opts.holder);
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

/** The lease as /api/health shows it: its holder and since while it is live at `now`, else null. */
export function liveLease(db: Db, now: number, name = BACKGROUND_LEASE): LeaseRow | null {
  const row = readLease(db, name);
  return row !== null && row.expiresAt > now ? row : null;
}
