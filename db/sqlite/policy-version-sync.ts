import { and, eq } from "drizzle-orm";
import type { Db } from "./client";
import { policyVersions } from "./schema";

/**
 * One stored version's document on SQLite, synchronously, or null: for the preview's window loader, which runs
 * synchronously in its own thread over its own SQLite connection. Everything else reads versions through the store
 * (db/store/control.ts getVersion, either engine).
 */
export function versionDocumentSync(db: Db, kind: string, version: number): { document: unknown } | null {
  const row = db
    .select({ document: policyVersions.document })
    .from(policyVersions)
    .where(and(eq(policyVersions.kind, kind), eq(policyVersions.version, version)))
    .get();
  return row ? { document: JSON.parse(row.document) as unknown } : null;
}
