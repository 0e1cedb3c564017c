import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

// Alerts (server/alerts): the states the leader keeps between evaluations, their history, and the receivers alerts
// are delivered to. Times are Unix ms; labels are a JSON object of strings.

/** Pending and firing alerts, one per rule and series: a new leader goes on from these (no second page). */
export const alertStates = sqliteTable(
  "alert_states",
  {
    rule: text("rule").notNull(),
    key: text("key").notNull(),
    labels: text("labels").notNull().default("{}"),
    /** pending | firing */
    state: text("state").notNull(),
    activeAt: integer("active_at").notNull(),
    firedAt: integer("fired_at"),
    value: real("value"),
    summary: text("summary").notNull(),
    link: text("link").notNull(),
    severity: text("severity").notNull(),
    /** When the leader last sent it to the receivers (a firing alert is sent again every minute). */
    sentAt: integer("sent_at"),
  },
  (t) => [primaryKey({ columns: [t.rule, t.key] })],
);

/** Every firing and resolution, kept as long as requests are (SWITCHYARD_RETENTION_DAYS). */
export const alertEvents = sqliteTable(
  "alert_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ts: integer("ts").notNull(),
    rule: text("rule").notNull(),
    key: text("key").notNull(),
    /** firing | resolved */
    kind: text("kind").notNull(),
    labels: text("labels").notNull().default("{}"),
    value: real("value"),
    summary: text("summary").notNull(),
    link: text("link").notNull(),
    severity: text("severity").notNull(),
  },
  (t) => [index("alert_events_ts").on(t.ts), index("alert_events_rule_ts").on(t.rule, t.ts)],
);

/** Where alerts go: an Alertmanager (its base URL) or a webhook (URL and the HMAC secret, sealed). */
export const alertReceivers = sqliteTable("alert_receivers", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** alertmanager | webhook */
  kind: text("kind").notNull(),
  url: text("url").notNull(),
  /** The webhook's signing secret, sealed with SWITCHYARD_SECRET_KEY (null for Alertmanager). */
  secret: text("secret"),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
