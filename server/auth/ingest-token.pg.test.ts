import { POSTGRES } from "../../test/stores";
import { ingestTokenCases } from "./ingest-token.cases";

// The ingest token check on PostgreSQL: the same cases as on SQLite (ingest-token.test.ts).

ingestTokenCases(POSTGRES);
