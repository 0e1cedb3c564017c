import { z } from "zod";

// The guard of a guarded rollout as an operator sets it (server/control/guard.ts decides with it). Pure.

/** The guard an operator adds in the publish dialog (the same schema validates the form and the procedure). */
export const guardInput = z
  .object({
    ttftP95RisePct: z
      .number({ error: "a percentage" })
      .gt(0, "must be more than 0%")
      .max(1000, "at most 1000%: a larger rise is no guard")
      .nullable()
      .default(null),
    hitRateDropPoints: z
      .number({ error: "a number of points" })
      .gt(0, "must be more than 0 points")
      .max(100, "at most 100 points (the whole hit rate)")
      .nullable()
      .default(null),
    windowMinutes: z
      .number({ error: "a whole number of minutes" })
      .int("a whole number of minutes")
      .min(1, "at least 1 minute")
      .max(120, "at most 120 minutes")
      .default(10),
  })
  .strict()
  .refine((g) => g.ttftP95RisePct !== null || g.hitRateDropPoints !== null, {
    path: ["ttftP95RisePct"],
    message: "set a TTFT or a hit-rate limit (or remove the guard)",
  });
export type GuardSpec = z.output<typeof guardInput>;
