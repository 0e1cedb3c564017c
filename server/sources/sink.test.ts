import { sinkCases, SQLITE_SINK } from "./sink.cases";

// A scrape stored through SQLite's ingest (the same case runs on PostgreSQL in sink.pg.test.ts).

sinkCases(SQLITE_SINK);
