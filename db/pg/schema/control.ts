import { boolean, doublePrecision, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// The control plane on PostgreSQL: policy versions, push targets, rollout status, the audit log and guards; mirror
// db/sqlite/schema/control.ts and db/sqlite/schema/guards.ts column for column (db/store/tables.ts checks the row types agree).
// Not partitioned: small, kept for as long as the policies are.

/** Immutable published policy versions; version counts from 1 per kind; (kind, version) unique, so of two processes
 * publishing the same next number at once exactly one stores it. document is the validated JSON. */
export const policyVersions = pgTable(
  "policy_versions",
  {
    /** The cluster the version is for (a CLUSTER_NAME; "default" for everything before clusters). */
    cluster: text("cluster").notNull().default("default"),
    kind: text("kind").notNull(),
    version: integer("version").notNull(),
    document: text("document").notNull(),
    author: text("author").notNull(),
    comment: text("comment").notNull().default(""),
    createdAt: ms("created_at").notNull(),
    basedOn: integer("based_on"),
  },
  (t) => [primaryKey({ columns: [t.cluster, t.kind, t.version] }), index("policy_versions_created").on(t.createdAt)],
);

/** Push targets: adapter is sim | dynamo-busy-threshold | planner-file; config and kinds are JSON. */
export const controlTargets = pgTable("control_targets", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** The cluster whose versions the target receives. */
  cluster: text("cluster").notNull().default("default"),
  adapter: text("adapter").notNull(),
  config: text("config").notNull().default("{}"),
  kinds: text("kinds").notNull().default("[]"),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: ms("created_at").notNull(),
});

/** Per target and kind: the desired and applied versions and the last push outcome (times in Unix ms). */
export const rolloutStatus = pgTable(
  "rollout_status",
  {
    targetId: text("target_id")
      .notNull()
      .references(() => controlTargets.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    desiredVersion: integer("desired_version"),
    appliedVersion: integer("applied_version"),
    appliedAt: ms("applied_at"),
    state: text("state").notNull(),
    message: text("message"),
    /** JSON [{ path, message }] from a target that refused a document. */
    errors: text("errors"),
    attempts: integer("attempts").notNull().default(0),
    nextRetryAt: ms("next_retry_at"),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.targetId, t.kind] })],
);

/** Every control-plane change: who, when, what (version is null for target changes). */
export const controlAudit = pgTable(
  "control_audit",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    ts: ms("ts").notNull(),
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

/** A guard added when a version was published (server/control/guard.ts); see db/sqlite/schema/guards.ts. */
export const policyGuards = pgTable(
  "policy_guards",
  {
    cluster: text("cluster").notNull().default("default"),
    kind: text("kind").notNull(),
    version: integer("version").notNull(),
    ttftP95RisePct: doublePrecision("ttft_p95_rise_pct"),
    hitRateDropPoints: doublePrecision("hit_rate_drop_points"),
    windowMinutes: integer("window_minutes").notNull(),
    createdAt: ms("created_at").notNull(),
    /** waiting | watching | passed | inconclusive | tripped | superseded */
    state: text("state").notNull(),
    appliedAt: ms("applied_at"),
    checkedAt: ms("checked_at"),
    message: text("message").notNull().default(""),
    reason: text("reason"),
    detail: text("detail"),
    rollbackVersion: integer("rollback_version"),
  },
  (t) => [primaryKey({ columns: [t.cluster, t.kind, t.version] }), index("policy_guards_state").on(t.state)],
);
