import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../client";
import { policyGuards } from "../schema";
import type { Conn } from "./control";

// Rows of policy_guards. What a guard decides and does (publish, trip, roll back) is server/control/guard-store.ts's.

export type GuardRow = typeof policyGuards.$inferSelect;
export type NewGuard = typeof policyGuards.$inferInsert;
/** The key of a guard: the kind and version it guards. */
export type GuardKey = Pick<GuardRow, "kind" | "version">;
/** Columns a guard's evaluation updates. */
export type GuardUpdate = Partial<Omit<GuardRow, "kind" | "version" | "createdAt">>;

const OPEN = ["waiting", "watching"];

/** Store a new guard. */
export function insertGuard(db: Conn, row: NewGuard): void {
  db.insert(policyGuards).values(row).run();
}

/** One guard, or undefined. */
export function guardByKey(db: Conn, key: GuardKey): GuardRow | undefined {
  return db
    .select()
    .from(policyGuards)
    .where(and(eq(policyGuards.kind, key.kind), eq(policyGuards.version, key.version)))
    .get();
}

/** Update a guard only while it is open (waiting or watching); true when it was. */
export function updateOpenGuard(db: Conn, key: GuardKey, set: GuardUpdate): boolean {
  const res = db
    .update(policyGuards)
    .set(set)
    .where(
      and(eq(policyGuards.kind, key.kind), eq(policyGuards.version, key.version), inArray(policyGuards.state, OPEN)),
    )
    .run();
  return res.changes > 0;
}

/** Update a guard whatever its state. */
export function updateGuard(db: Conn, key: GuardKey, set: GuardUpdate): void {
  db.update(policyGuards)
    .set(set)
    .where(and(eq(policyGuards.kind, key.kind), eq(policyGuards.version, key.version)))
    .run();
}

/** Guards still being evaluated (waiting for an ack or watching), oldest first. */
export function openGuards(db: Db): GuardRow[] {
  return db
    .select()
    .from(policyGuards)
    .where(inArray(policyGuards.state, OPEN))
    .orderBy(policyGuards.createdAt)
    .limit(100)
    .all();
}

/** The guards of the given versions of a kind. */
export function guardsOf(db: Db, kind: string, versions: readonly number[]): GuardRow[] {
  if (versions.length === 0) return [];
  return db
    .select()
    .from(policyGuards)
    .where(and(eq(policyGuards.kind, kind), inArray(policyGuards.version, [...versions])))
    .all();
}

/** Versions a tripped guard published in [from, to): the guarded version and why, for the charts' policy marks. */
export function guardRollbacksBetween(
  db: Db,
  from: number,
  to: number,
): { kind: string; version: number; rollbackVersion: number; reason: string | null }[] {
  return db.$client
    .prepare(
      `SELECT g.kind, g.version, g.rollback_version AS rollbackVersion, g.reason FROM policy_guards g
       JOIN policy_versions v ON v.kind = g.kind AND v.version = g.rollback_version
       WHERE g.state = 'tripped' AND v.created_at >= ? AND v.created_at < ? LIMIT 100`,
    )
    .all(from, to) as { kind: string; version: number; rollbackVersion: number; reason: string | null }[];
}
