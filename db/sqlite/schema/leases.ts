import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Named leases: background work runs on the process that holds its lease. holder is a process id
 * (host:pid:random); since is when that holder took it, expires_at when another process may take it (Unix ms).
 */
export const leases = sqliteTable("leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  since: integer("since").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

/**
 * Failed sign-ins per limit key (`a:<account>` or `i:<address>`) and ms (Unix ms), with how many failed in that ms:
 * every dashboard process counts the same failures.
 */
export const loginFailures = sqliteTable(
  "login_failures",
  {
    key: text("key").notNull(),
    at: integer("at").notNull(),
    n: integer("n").notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.key, t.at] }), index("login_failures_at").on(t.at)],
);
