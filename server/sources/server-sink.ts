import { serverDb, serverPg } from "../runtime";
import { pgSink, sqliteSink } from "./sink";
import type { SourceSink } from "./status";

/** The server process's source sink: PostgreSQL's when SWITCHYARD_DATABASE_URL is set, else the SQLite file's. */
export function serverSourceSink(): SourceSink {
  const pg = serverPg();
  return pg ? pgSink(pg) : sqliteSink(serverDb());
}
