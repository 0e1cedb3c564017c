import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./db/sqlite/schema/index.ts",
  out: "./db/sqlite/migrations",
});
