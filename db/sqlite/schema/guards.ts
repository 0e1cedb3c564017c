import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A guard added when a version was published (server/control/guard.ts): its limits, where its evaluation stands, and
 * when it tripped the version it rolled back to. Times are Unix ms; detail is the last decision's JSON deltas.
 */
export const policyGuards = sqliteTable(
  "policy_guards",
  {
    kind: text("kind").notNull(),
    version: integer("version").notNull(),
    /** Largest allowed TTFT p95 rise in percent (null: not checked). */
    ttftP95RisePct: real("ttft_p95_rise_pct"),
    /** Largest allowed hit-rate fall in percentage points (null: not checked). */
    hitRateDropPoints: real("hit_rate_drop_points"),
    windowMinutes: integer("window_minutes").notNull(),
    createdAt: integer("created_at").notNull(),
    /** waiting | watching | passed | inconclusive | tripped | superseded */
    state: text("state").notNull(),
    appliedAt: integer("applied_at"),
    checkedAt: integer("checked_at"),
    message: text("message").notNull().default(""),
    reason: text("reason"),
    detail: text("detail"),
    /** The version the guard published when it tripped (the previous version's content). */
    rollbackVersion: integer("rollback_version"),
  },
  (t) => [primaryKey({ columns: [t.kind, t.version] }), index("policy_guards_state").on(t.state)],
);
