import { SQLITE_PAGES } from "../../test/page-stores";
import { routingCases } from "./routing.cases";

// The routing procedures on SQLite; the same cases run on PostgreSQL in routing.pg.test.ts.

routingCases(SQLITE_PAGES);
