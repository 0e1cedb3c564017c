import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// Source health and the server's small key/value facts on PostgreSQL; mirror db/schema/sources.ts' source_status and
// db/schema/settings.ts column for column (times Unix ms; missing/renamed JSON string arrays; detail a JSON object).

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
