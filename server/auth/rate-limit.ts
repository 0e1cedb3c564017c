// Failed sign-in attempts per account and per address in a sliding window, counted in the database so that every
// dashboard process sharing it enforces the same limit; the decision is limitDecision's, time is passed in.
import {
  clearLoginFailures,
  deleteLoginFailuresBefore,
  insertLoginFailures,
  loginFailuresSince,
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

const accountKey = (account: string) => `a:${account}`;
const addressKey = (address: string) => `i:${address}`;

/** The sign-in limit over the failures in the store (no state of its own: any process may make one per request). */
export class LoginLimiter {
  constructor(
    private readonly store: Store,
    private readonly cfg: LimitConfig = DEFAULT_LIMITS,
  ) {}

  /** null when a sign-in may be tried, else a message and the seconds to wait. */
  async check(account: string, address: string, now: number): Promise<Blocked | null> {
    const since = now - this.cfg.windowMs;
    const [forAccount, forAddress] = await Promise.all([
      loginFailuresSince(this.store, accountKey(account), since),
      loginFailuresSince(this.store, addressKey(address), since),
    ]);
    return limitDecision(forAccount, forAddress, now, this.cfg);
  }

  /** Count a failure against the account and the address (and drop their failures that left the window). */
  async fail(account: string, address: string, now: number): Promise<void> {
    await insertLoginFailures(this.store, [accountKey(account), addressKey(address)], now, now - this.cfg.windowMs);
  }

  /** A successful sign-in clears the account's failures (the address keeps its count). */
  async succeed(account: string): Promise<void> {
    await clearLoginFailures(this.store, accountKey(account));
  }
}

/** Housekeeping: drop every failure that left the window at `now`. Returns rows gone. */
export function pruneLoginFailures(s: Store, now: number, cfg: LimitConfig = DEFAULT_LIMITS): Promise<number> {
  return deleteLoginFailuresBefore(s, now - cfg.windowMs);
}
