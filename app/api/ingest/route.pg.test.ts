import { ingestRouteHarness } from "./route-harness";
import { ingestRouteCases } from "./route.cases";

// The ingest route with SWITCHYARD_DATABASE_URL set: the same cases as on SQLite (route.test.ts), stored on PostgreSQL.

ingestRouteCases(ingestRouteHarness("PostgreSQL"));
