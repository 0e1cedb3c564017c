import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Console accounts. username is lower-case; passwordHash is null until an invited user sets one. Times in Unix ms. */
export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  username: text("username").notNull().unique(),
  role: text("role").notNull(),
  passwordHash: text("password_hash"),
  disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  lastLoginAt: integer("last_login_at"),
});

/** Browser sessions; id is the SHA-256 (hex) of the cookie value, never the value itself. */
export const authSessions = sqliteTable(
  "auth_sessions",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("auth_sessions_user").on(t.userId)],
);

/** API tokens (scope ingest | read | operate | admin); digest is the SHA-256 (hex) of the token, shown once. */
export const apiTokens = sqliteTable("api_tokens", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  scope: text("scope").notNull(),
  digest: text("digest").notNull().unique(),
  hint: text("hint").notNull(),
  createdBy: text("created_by").notNull(),
  createdAt: integer("created_at").notNull(),
  lastUsedAt: integer("last_used_at"),
  revokedAt: integer("revoked_at"),
});

/** One-time links (purpose setup | invite | login); digest is the SHA-256 (hex) of the link secret. */
export const authLinks = sqliteTable("auth_links", {
  digest: text("digest").primaryKey(),
  purpose: text("purpose").notNull(),
  userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
});

/**
 * Browsers that signed in with a user's password ("known devices"): id is the SHA-256 (hex) of the random value in
 * the browser's sy_device cookie. Such a browser may still sign in while the account is locked for others. Times in
 * Unix ms; expires_at moves forward on each sign-in from it.
 */
export const knownDevices = sqliteTable(
  "known_devices",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("known_devices_user").on(t.userId, t.lastUsedAt)],
);

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
