import { boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// Accounts, sessions, known devices, tokens, one-time links, sign-in failures and leases on PostgreSQL; mirror db/sqlite/schema/auth.ts and
// db/sqlite/schema/leases.ts column for column (db/store/tables.ts checks that their row types are the same).

/** Console accounts. username is lower-case; passwordHash is null until an invited user sets one. Times in Unix ms. */
export const users = pgTable("users", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  username: text("username").notNull().unique(),
  role: text("role").notNull(),
  passwordHash: text("password_hash"),
  disabled: boolean("disabled").notNull().default(false),
  createdAt: ms("created_at").notNull(),
  lastLoginAt: ms("last_login_at"),
});

/** Browser sessions; id is the SHA-256 (hex) of the cookie value, never the value itself. */
export const authSessions = pgTable(
  "auth_sessions",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [index("auth_sessions_user").on(t.userId)],
);

/** API tokens (scope ingest | read | operate | admin); digest is the SHA-256 (hex) of the token, shown once. */
export const apiTokens = pgTable("api_tokens", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  name: text("name").notNull(),
  scope: text("scope").notNull(),
  digest: text("digest").notNull().unique(),
  hint: text("hint").notNull(),
  createdBy: text("created_by").notNull(),
  createdAt: ms("created_at").notNull(),
  lastUsedAt: ms("last_used_at"),
  revokedAt: ms("revoked_at"),
});

/** One-time links (purpose setup | invite | login); digest is the SHA-256 (hex) of the link secret. */
export const authLinks = pgTable("auth_links", {
  digest: text("digest").primaryKey(),
  purpose: text("purpose").notNull(),
  userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
  createdAt: ms("created_at").notNull(),
  expiresAt: ms("expires_at").notNull(),
  usedAt: ms("used_at"),
});

/**
 * Browsers that signed in with a user's password ("known devices"): id is the SHA-256 (hex) of the random value in
 * the browser's sy_device cookie. Such a browser may still sign in while the account is locked for others. Times in
 * Unix ms; expires_at moves forward on each sign-in from it.
 */
export const knownDevices = pgTable(
  "known_devices",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ms("created_at").notNull(),
    lastUsedAt: ms("last_used_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [index("known_devices_user").on(t.userId, t.lastUsedAt)],
);

/** Named leases (holder host:pid:random; since and expires_at in Unix ms of the database's clock, now()). */
export const leases = pgTable("leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  since: ms("since").notNull(),
  expiresAt: ms("expires_at").notNull(),
});

/** Failed sign-ins per limit key (`a:<account>` or `i:<address>`) and ms (Unix ms), with how many failed in that ms. */
export const loginFailures = pgTable(
  "login_failures",
  {
    key: text("key").notNull(),
    at: ms("at").notNull(),
    n: integer("n").notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.key, t.at] }), index("login_failures_at").on(t.at)],
);
