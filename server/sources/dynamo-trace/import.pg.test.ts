import { POSTGRES_SINK } from "../sink.cases";
import { importCases } from "./import.cases";

// Trace imports stored through PostgreSQL's ingest: the same cases as on SQLite (import.test.ts).

importCases(POSTGRES_SINK);
