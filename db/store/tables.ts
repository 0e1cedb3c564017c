import * as pg from "../pg/schema";
import * as sqlite from "../sqlite/schema";
import * as reads from "./page-tables";

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
  knownDevices: pg.knownDevices,
  policyVersions: pg.policyVersions,
  controlTargets: pg.controlTargets,
  rolloutStatus: pg.rolloutStatus,
  controlAudit: pg.controlAudit,
  policyGuards: pg.policyGuards,
  policyAcks: pg.policyAcks,
  workers: pg.workers,
  workerEvents: pg.workerEvents,
  workerStats: pg.workerStats,
  routeDecisions: pg.routeDecisions,
  workerStats10s: pg.workerStats10s,
  workerStats30s: pg.workerStats30s,
  workerStats1m: pg.workerStats1m,
  workerStats5m: pg.workerStats5m,
  workerStats15m: pg.workerStats15m,
  requestItl1m: pg.requestItl1m,
  requestTtft1m: pg.requestTtft1m,
  requestsScope1m: pg.requestsScope1m,
  requestTtftScope1m: pg.requestTtftScope1m,
  routeDecisions1m: pg.routeDecisions1m,
  routeDecisions15m: pg.routeDecisions15m,
  kvEventReads: reads.pgKvEventReads,
  requestReads: reads.pgRequestReads,
  requests1m: pg.requests1m,
  toolPresence: reads.pgPresence.tools,
  reasoningPresence: reads.pgPresence.reasoningSpans,
  plannerPresence: reads.pgPresence.plannerDecisions,
  settings: pg.settings,
  plannerDecisions: pg.plannerDecisions,
  kvTiers1m: pg.kvTiers1m,
  requestTiers1m: pg.requestTiers1m,
  kvbm1m: pg.kvbm1m,
  previewResults: pg.previewResults,
  sources: pg.sources,
  sourceStatus: pg.sourceStatus,
  alertStates: pg.alertStates,
  alertEvents: pg.alertEvents,
  alertReceivers: pg.alertReceivers,
};

export type StoreTables = typeof pgTables;

export const sqliteTables = {
  leases: sqlite.leases,
  loginFailures: sqlite.loginFailures,
  users: sqlite.users,
  authSessions: sqlite.authSessions,
  apiTokens: sqlite.apiTokens,
  authLinks: sqlite.authLinks,
  knownDevices: sqlite.knownDevices,
  policyVersions: sqlite.policyVersions,
  controlTargets: sqlite.controlTargets,
  rolloutStatus: sqlite.rolloutStatus,
  controlAudit: sqlite.controlAudit,
  policyGuards: sqlite.policyGuards,
  policyAcks: sqlite.policyAcks,
  workers: sqlite.workers,
  workerEvents: sqlite.workerEvents,
  workerStats: sqlite.workerStats,
  routeDecisions: sqlite.routeDecisions,
  workerStats10s: sqlite.workerStats10s,
  workerStats30s: sqlite.workerStats30s,
  workerStats1m: sqlite.workerStats1m,
  workerStats5m: sqlite.workerStats5m,
  workerStats15m: sqlite.workerStats15m,
  requestItl1m: sqlite.requestItl1m,
  requestTtft1m: sqlite.requestTtft1m,
  requestsScope1m: sqlite.requestsScope1m,
  requestTtftScope1m: sqlite.requestTtftScope1m,
  routeDecisions1m: sqlite.routeDecisions1m,
  routeDecisions15m: sqlite.routeDecisions15m,
  kvEventReads: reads.sqliteKvEventReads,
  requestReads: reads.sqliteRequestReads,
  requests1m: reads.sqliteRequests1mReads,
  toolPresence: reads.sqlitePresence.tools,
  reasoningPresence: reads.sqlitePresence.reasoningSpans,
  plannerPresence: reads.sqlitePresence.plannerDecisions,
  settings: sqlite.settings,
  plannerDecisions: sqlite.plannerDecisions,
  kvTiers1m: sqlite.kvTiers1m,
  requestTiers1m: sqlite.requestTiers1m,
  kvbm1m: sqlite.kvbm1m,
  previewResults: sqlite.previewResults,
  sources: sqlite.sources,
  sourceStatus: sqlite.sourceStatus,
  alertStates: sqlite.alertStates,
  alertEvents: sqlite.alertEvents,
  alertReceivers: sqlite.alertReceivers,
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
