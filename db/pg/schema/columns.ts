import { bigint, customType } from "drizzle-orm/pg-core";

// Column kinds shared by the PostgreSQL schema.

/** Unix ms (or any 64-bit integer that fits a JS number): bigint on disk, number in code. */
export const ms = (name: string) => bigint(name, { mode: "number" });

/** Raw bytes (8-byte big-endian u64 hashes, as on SQLite). */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });
