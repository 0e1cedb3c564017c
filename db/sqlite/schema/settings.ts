import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Small key/value facts the server keeps (e.g. the generated ingest token's hash). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
