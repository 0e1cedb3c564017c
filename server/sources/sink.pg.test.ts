import { POSTGRES_SINK, sinkCases } from "./sink.cases";

// A scrape stored through PostgreSQL's ingest: the same case as on SQLite (sink.test.ts).

sinkCases(POSTGRES_SINK);
