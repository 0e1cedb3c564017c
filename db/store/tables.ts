import * as pg from "../pg-schema";
import * as sqlite from "../schema";

// The tables the store's queries are written against, per engine. Queries see PostgreSQL's table types; at run time
// a SQLite store hands them SQLite's tables. That is sound only while each pair has the same row types, which the
// `parity` constant below makes the compiler check (and store.test.ts checks the column names).

export const pgTables = {
  leases: pg.leases,
  loginFailures: pg.loginFailures,
  users: pg.users,
  authSessions: pg.authSessions,
  apiTokens: pg.apiTokens,
  authLinks: pg.authLinks,
  policyVersions: pg.policyVersions,
  controlTargets: pg.controlTargets,
  rolloutStatus: pg.rolloutStatus,
  controlAudit: pg.controlAudit,
  policyGuards: pg.policyGuards,
  policyAcks: pg.policyAcks,
};

export type StoreTables = typeof pgTables;

export const sqliteTables = {
  leases: sqlite.leases,
  loginFailures: sqlite.loginFailures,
  users: sqlite.users,
  authSessions: sqlite.authSessions,
  apiTokens: sqlite.apiTokens,
  authLinks: sqlite.authLinks,
  policyVersions: sqlite.policyVersions,
  controlTargets: sqlite.controlTargets,
  rolloutStatus: sqlite.rolloutStatus,
  controlAudit: sqlite.controlAudit,
  policyGuards: sqlite.policyGuards,
  policyAcks: sqlite.policyAcks,
} satisfies Record<keyof StoreTables, unknown>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type SqliteTables = typeof sqliteTables;
type Parity = {
  [K in keyof StoreTables]: Same<StoreTables[K]["$inferSelect"], SqliteTables[K]["$inferSelect"]> extends true
    ? Same<StoreTables[K]["$inferInsert"], SqliteTables[K]["$inferInsert"]>
    : false;
};

/** Fails to compile when a table's select or insert row differs between the engines (a `false` here names it). */
export const parity: { [K in keyof StoreTables]: true } = null as unknown as Parity;
