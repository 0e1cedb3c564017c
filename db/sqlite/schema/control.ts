import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Immutable published policy versions; version counts from 1 per kind. document is the validated JSON. */
export const policyVersions = sqliteTable(
  "policy_versions",
  {
    /** The cluster the version is for (a CLUSTER_NAME; "default" for everything before clusters). */
    cluster: text("cluster").notNull().default("default"),
    kind: text("kind").notNull(),
    version: integer("version").notNull(),
    document: text("document").notNull(),
    author: text("author").notNull(),
    comment: text("comment").notNull().default(""),
    createdAt: integer("created_at").notNull(),
    basedOn: integer("based_on"),
  },
  (t) => [primaryKey({ columns: [t.cluster, t.kind, t.version] })],
);

/** Push targets: adapter is sim | dynamo-busy-threshold | planner-file; config and kinds are JSON. */
export const controlTargets = sqliteTable("control_targets", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** The cluster whose versions the target receives. */
  cluster: text("cluster").notNull().default("default"),
  adapter: text("adapter").notNull(),
  config: text("config").notNull().default("{}"),
  kinds: text("kinds").notNull().default("[]"),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at").notNull(),
});

/** Per target and kind: the desired and applied versions and the last push outcome (times in Unix ms). */
export const rolloutStatus = sqliteTable(
  "rollout_status",
  {
    targetId: text("target_id")
      .notNull()
      .references(() => controlTargets.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    desiredVersion: integer("desired_version"),
    appliedVersion: integer("applied_version"),
    appliedAt: integer("applied_at"),
    state: text("state").notNull(),
    message: text("message"),
    /** JSON [{ path, message }] from a target that refused a document, for showing next to the field. */
    errors: text("errors"),
    attempts: integer("attempts").notNull().default(0),
    nextRetryAt: integer("next_retry_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.targetId, t.kind] })],
);

/** Every control-plane change: who, when, what (version is null for target changes). */
export const controlAudit = sqliteTable(
  "control_audit",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ts: integer("ts").notNull(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    /** The cluster a version or target change was for (null for changes that are not a cluster's). */
    cluster: text("cluster"),
    kind: text("kind"),
    version: integer("version"),
    detail: text("detail").notNull().default("{}"),
  },
  (t) => [index("control_audit_ts").on(t.ts)],
);

/**
 * A guard added when a version was published (server/control/guard.ts): its limits, where its evaluation stands, and
 * when it tripped the version it rolled back to. Times are Unix ms; detail is the last decision's JSON deltas.
 */
export const policyGuards = sqliteTable(
  "policy_guards",
  {
    cluster: text("cluster").notNull().default("default"),
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
  (t) => [primaryKey({ columns: [t.cluster, t.kind, t.version] }), index("policy_guards_state").on(t.state)],
);
