import { bigserial, boolean, doublePrecision, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// Alerts on PostgreSQL; mirror db/sqlite/schema/alerts.ts column for column.

/** Pending and firing alerts, one per rule and series. */
export const alertStates = pgTable(
  "alert_states",
  {
    rule: text("rule").notNull(),
    key: text("key").notNull(),
    labels: text("labels").notNull().default("{}"),
    state: text("state").notNull(),
    activeAt: ms("active_at").notNull(),
    firedAt: ms("fired_at"),
    value: doublePrecision("value"),
    summary: text("summary").notNull(),
    link: text("link").notNull(),
    severity: text("severity").notNull(),
    sentAt: ms("sent_at"),
  },
  (t) => [primaryKey({ columns: [t.rule, t.key] })],
);

/** Every firing and resolution. */
export const alertEvents = pgTable(
  "alert_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    ts: ms("ts").notNull(),
    rule: text("rule").notNull(),
    key: text("key").notNull(),
    kind: text("kind").notNull(),
    labels: text("labels").notNull().default("{}"),
    value: doublePrecision("value"),
    summary: text("summary").notNull(),
    link: text("link").notNull(),
    severity: text("severity").notNull(),
  },
  (t) => [index("alert_events_ts").on(t.ts), index("alert_events_rule_ts").on(t.rule, t.ts)],
);

/** Where alerts go. */
export const alertReceivers = pgTable("alert_receivers", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  kind: text("kind").notNull(),
  url: text("url").notNull(),
  secret: text("secret"),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});
