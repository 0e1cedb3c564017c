import { POSTGRES_PAGES } from "../../test/page-stores";
import { sourcesCases } from "./sources.cases";

// The sources procedures on PostgreSQL: the same cases as on SQLite (sources.test.ts).

sourcesCases(POSTGRES_PAGES);
