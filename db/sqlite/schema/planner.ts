import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Every planner decision, including "no change". */
export const plannerDecisions = sqliteTable(
  "planner_decisions",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
    role: text("role").notNull(),
    metric: text("metric").notNull(),
    observed: real("observed").notNull(),
    scaleUpThreshold: real("scale_up_threshold").notNull(),
    scaleDownThreshold: real("scale_down_threshold").notNull(),
    action: text("action").notNull(),
    replicasBefore: integer("replicas_before").notNull(),
    replicasAfter: integer("replicas_after").notNull(),
    reason: text("reason").notNull(),
    source: text("source"),
  },
  (t) => [index("planner_decisions_ts").on(t.ts), index("planner_decisions_role_ts").on(t.role, t.ts)],
);
