import { defineConfig } from "drizzle-kit";

// PostgreSQL's schema and migrations (SQLite's are in drizzle.config.ts). Partitioning is added by hand to the
// generated SQL (drizzle-kit does not emit PARTITION BY): see db/pg/partitions.ts.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/pg/schema/index.ts",
  out: "./db/pg/migrations",
});
