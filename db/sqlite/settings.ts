import { eq } from "drizzle-orm";
import type { Db } from "./client";
import { settings } from "./schema";

/** A stored setting's value, or null. */
export function getSetting(db: Db, key: string): string | null {
  return db.select({ value: settings.value }).from(settings).where(eq(settings.key, key)).get()?.value ?? null;
}

/** Store a setting only if it is not set yet; true when this call stored it. */
export function putSettingIfAbsent(db: Db, key: string, value: string, now: number): boolean {
  const res = db.insert(settings).values({ key, value, updatedAt: now }).onConflictDoNothing().run();
  return res.changes === 1;
}
