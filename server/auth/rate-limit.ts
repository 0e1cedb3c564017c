// Failed sign-in attempts per account and per address in a sliding window; time is passed in.

export type LimitConfig = { windowMs: number; perAccount: number; perAddress: number };

export const DEFAULT_LIMITS: LimitConfig = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 20 };

const MAX_KEYS = 10_000;

export class LoginLimiter {
  private failures = new Map<string, number[]>();

  constructor(private readonly cfg: LimitConfig = DEFAULT_LIMITS) {}

  /** null when a sign-in may be tried, else a message and the seconds to wait. */
  check(account: string, address: string, now: number): { message: string; retryAfter: number } | null {
    const acc = this.recent(`a:${account}`, now);
    if (acc.length >= this.cfg.perAccount) return this.blocked("this account", acc, now);
    const addr = this.recent(`i:${address}`, now);
    if (addr.length >= this.cfg.perAddress) return this.blocked("your address", addr, now);
    return null;
  }

  fail(account: string, address: string, now: number): void {
    for (const key of [`a:${account}`, `i:${address}`]) {
      if (this.failures.size >= MAX_KEYS && !this.failures.has(key)) this.prune(now);
      this.failures.set(key, [...this.recent(key, now), now]);
    }
  }

  /** A successful sign-in clears the account's failures (the address keeps its count). */
  succeed(account: string): void {
    this.failures.delete(`a:${account}`);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.cfg.windowMs);
  }

  private blocked(who: string, times: number[], now: number) {
    const retryAfter = Math.max(1, Math.ceil((times[0]! + this.cfg.windowMs - now) / 1000));
    const minutes = Math.ceil(retryAfter / 60);
    return {
      message: `Too many failed sign-in attempts for ${who}. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      retryAfter,
    };
  }

  private prune(now: number) {
    for (const [k, v] of this.failures) if (!v.some((t) => t > now - this.cfg.windowMs)) this.failures.delete(k);
    if (this.failures.size >= MAX_KEYS) this.failures.delete(this.failures.keys().next().value!);
  }
}
