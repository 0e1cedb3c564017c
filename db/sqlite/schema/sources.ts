import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Configured telemetry sources the dashboard pulls from or watches; kind is a SourceKind, config its JSON. */
export const sources = sqliteTable("sources", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  name: text("name").notNull(),
  config: text("config").notNull().default("{}"),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  /** "env" for targets upserted from SWITCHYARD_SCRAPE_TARGETS, "ui" for ones added on the Sources page. */
  origin: text("origin").notNull().default("ui"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Health of every source, configured or implicit (otlp, trace-upload have no sources row). Times are Unix ms;
 * missing/renamed are JSON string arrays; detail is a JSON object the source kind defines.
 */
export const sourceStatus = sqliteTable("source_status", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  name: text("name").notNull(),
  lastSuccessAt: integer("last_success_at"),
  lastErrorAt: integer("last_error_at"),
  lastError: text("last_error"),
  errorCount: integer("error_count").notNull().default(0),
  successCount: integer("success_count").notNull().default(0),
  eventsTotal: integer("events_total").notNull().default(0),
  lastEvents: integer("last_events"),
  series: integer("series"),
  durationMs: integer("duration_ms"),
  missing: text("missing").notNull().default("[]"),
  renamed: text("renamed").notNull().default("[]"),
  gaps: integer("gaps").notNull().default(0),
  detail: text("detail").notNull().default("{}"),
  updatedAt: integer("updated_at").notNull(),
});

/** Small key/value facts the server keeps (e.g. the generated ingest token's hash). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
