// Window lengths of a policy version's impact (server/analysis/impact.ts measures them, the panel offers them). Pure.

export const MINUTE = 60_000;
/** The longest window the panel offers and the default's cap (the default is min(time since the ack, 1 h)). */
export const IMPACT_MAX_WINDOW_MS = 60 * MINUTE;
/** Window lengths (minutes) the panel's selector offers besides the default. */
export const IMPACT_WINDOW_CHOICES = [5, 15, 30, 60] as const;
