import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** policy.ack events: what a target reported it applied or refused. */
export const policyAcks = sqliteTable(
  "policy_acks",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
    target: text("target").notNull(),
    policyKind: text("policy_kind").notNull(),
    version: integer("version").notNull(),
    status: text("status").notNull(),
    message: text("message"),
    source: text("source"),
  },
  (t) => [index("policy_acks_ts").on(t.ts), index("policy_acks_target").on(t.target, t.policyKind, t.ts)],
);
