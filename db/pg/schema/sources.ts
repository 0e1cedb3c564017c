import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// Configured sources, source health and the server's small key/value facts on PostgreSQL; mirror db/sqlite/schema/sources.ts
// and db/sqlite/schema/settings.ts column for column (times Unix ms; config and detail JSON objects; missing/renamed JSON
// string arrays).

/** Configured telemetry sources the dashboard pulls from or watches; kind is a SourceKind, config its JSON. */
export const sources = pgTable("sources", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  name: text("name").notNull(),
  config: text("config").notNull().default("{}"),
  enabled: boolean("enabled").notNull().default(true),
  /** "env" for targets upserted from SWITCHYARD_SCRAPE_TARGETS, "ui" for ones added on the Sources page. */
  origin: text("origin").notNull().default("ui"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

/** Health of every source, configured or implicit (ingest senders, otlp, trace-upload). */
export const sourceStatus = pgTable("source_status", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  name: text("name").notNull(),
  lastSuccessAt: ms("last_success_at"),
  lastErrorAt: ms("last_error_at"),
  lastError: text("last_error"),
  errorCount: integer("error_count").notNull().default(0),
  successCount: integer("success_count").notNull().default(0),
  eventsTotal: ms("events_total").notNull().default(0),
  lastEvents: integer("last_events"),
  series: integer("series"),
  durationMs: integer("duration_ms"),
  missing: text("missing").notNull().default("[]"),
  renamed: text("renamed").notNull().default("[]"),
  gaps: integer("gaps").notNull().default(0),
  detail: text("detail").notNull().default("{}"),
  updatedAt: ms("updated_at").notNull(),
});

/** Small key/value facts the server keeps (e.g. a sender's reported dropped-events total). */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: ms("updated_at").notNull(),
});
