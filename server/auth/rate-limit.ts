// Sign-in attempts per account, per address and per known device in a sliding window, counted in the database (before
// the password is checked) so that every dashboard process sharing it enforces the same limit; time is passed in.
import {
  clearLoginFailures,
  deleteLoginFailuresBefore,
  loginFailuresSince,
  releaseLoginAttempt,
  reserveLoginAttempt,
  type KeyLimit,
} from "../../db/store/auth";
import type { Store } from "../../db/store/store";

export type LimitConfig = { windowMs: number; perAccount: number; perAddress: number };

export const DEFAULT_LIMITS: LimitConfig = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 20 };

/** Failures in the window: how many, and when the oldest of them was (Unix ms; null when none). */
export type RecentFailures = { count: number; oldest: number | null };

export type Blocked = { message: string; retryAfter: number };

/**
 * null when a sign-in may be tried at `now`, else a message and the whole seconds (≥ 1) until the oldest failure
 * that counts leaves the window. The account's limit is checked first (it names the account, not the address).
 */
export function limitDecision(
  account: RecentFailures,
  address: RecentFailures,
  now: number,
  cfg: LimitConfig,
): Blocked | null {
  if (account.count >= cfg.perAccount) return blocked("this account", account.oldest ?? now, now, cfg);
  if (address.count >= cfg.perAddress) return blocked("your address", address.oldest ?? now, now, cfg);
  return null;
}

function blocked(who: string, oldest: number, now: number, cfg: LimitConfig): Blocked {
  const retryAfter = Math.max(1, Math.ceil((oldest + cfg.windowMs - now) / 1000));
  const minutes = Math.ceil(retryAfter / 60);
  return {
    message: `Too many failed sign-in attempts for ${who}. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    retryAfter,
  };
}

/**
 * One sign-in attempt: the account named, the client's address, and the known device (digest of its cookie's value)
 * when the browser holds one of this account's, else null.
 */
export type LoginAttempt = { account: string; address: string; device: string | null };

/** What an attempt counts against, which limits it must be under, and what its success clears or gives back. */
export type AttemptPlan = {
  counted: string[];
  limits: KeyLimit[];
  clearedOnSuccess: string[];
  returnedOnSuccess: string[];
};

/**
 * An attempt counts against its account and address (and device) before the password is checked. From a browser
 * unknown to the account it must be under the account's and the address's limits, and a success clears the
 * account's count (and gives the address its attempt back). A known device is held to a limit of its own, the
 * account's size, instead: a lock someone else caused (on the account, or on an address many people share behind
 * one proxy) does not keep it out, while a stolen device cookie still gets no more guesses than the account does.
 * Its failures count against the account and the address as anyone's do, and its success clears only its own count
 * (the account stays locked for whoever locked it).
 */
export function attemptPlan(a: LoginAttempt, cfg: LimitConfig): AttemptPlan {
  const account = `a:${a.account}`;
  const address = `i:${a.address}`;
  if (a.device === null)
    return {
      counted: [account, address],
      limits: [
        { key: account, limit: cfg.perAccount },
        { key: address, limit: cfg.perAddress },
      ],
      clearedOnSuccess: [account],
      returnedOnSuccess: [address],
    };
  const device = `d:${a.device}`;
  return {
    counted: [account, address, device],
    limits: [{ key: device, limit: cfg.perAccount }],
    clearedOnSuccess: [device],
    returnedOnSuccess: [account, address],
  };
}

/** A counted attempt: what to clear or give back if its password turns out right. */
export type Ticket = { plan: AttemptPlan; at: number };

/** The sign-in limit over the attempts in the store (no state of its own: any process may make one per request). */
export class LoginLimiter {
  constructor(
    private readonly store: Store,
    private readonly cfg: LimitConfig = DEFAULT_LIMITS,
  ) {}

  /**
   * Count an attempt at `now` if its limits allow it (decided and counted in one step, so attempts sent at once
   * cannot all pass); else what to tell the client, and nothing is counted.
   */
  async reserve(attempt: LoginAttempt, now: number): Promise<{ ticket: Ticket } | { blocked: Blocked }> {
    const plan = attemptPlan(attempt, this.cfg);
    const since = now - this.cfg.windowMs;
    if (await reserveLoginAttempt(this.store, plan.counted, plan.limits, now, since))
      return { ticket: { plan, at: now } };
    const [first, second] = await Promise.all(plan.limits.map((l) => loginFailuresSince(this.store, l.key, since)));
    const blocked = limitDecision(first ?? NONE, second ?? NONE, now, this.cfg);
    // The counts fell between the refusal and this read (a success cleared them): try again in a second.
    return { blocked: blocked ?? { message: "Too many sign-in attempts at once. Try again.", retryAfter: 1 } };
  }

  /** The ticket's password was right: clear the count it clears and give back the attempt it took elsewhere. */
  async succeed(ticket: Ticket): Promise<void> {
    for (const key of ticket.plan.clearedOnSuccess) await clearLoginFailures(this.store, key);
    await releaseLoginAttempt(this.store, ticket.plan.returnedOnSuccess, ticket.at);
  }
}

const NONE: RecentFailures = { count: 0, oldest: null };

/** Housekeeping: drop every failure that left the window at `now`. Returns rows gone. */
export function pruneLoginFailures(s: Store, now: number, cfg: LimitConfig = DEFAULT_LIMITS): Promise<number> {
  return deleteLoginFailuresBefore(s, now - cfg.windowMs);
}
