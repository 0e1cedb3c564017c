import { sharedDb, type Db } from "../db/client";
import { env } from "./env";
import { acceptedTokenDigests } from "./ingest/token";

/** The server process's database connection (opened and migrated on first use). */
export function serverDb(): Db {
  return sharedDb(env().SWITCHYARD_DB);
}

const key = Symbol.for("switchyard.ingestDigests");
type Holder = { [key]?: Buffer[] };

/** Digests of the accepted ingest tokens, read once per process. */
export function ingestDigests(): Buffer[] {
  const holder = globalThis as Holder;
  holder[key] ??= acceptedTokenDigests(serverDb(), env().SWITCHYARD_INGEST_TOKEN);
  return holder[key];
}
