import { SQLITE } from "../../test/stores";
import { ingestTokenCases } from "./ingest-token.cases";

// The ingest token check on SQLite (the same cases run on PostgreSQL in ingest-token.pg.test.ts).

ingestTokenCases(SQLITE);
