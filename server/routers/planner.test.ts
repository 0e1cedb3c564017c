import { SQLITE_PAGES } from "../../test/page-stores";
import { plannerCases } from "./planner.cases";

// The planner procedures on SQLite; the same cases run on PostgreSQL in planner.pg.test.ts.

plannerCases(SQLITE_PAGES);
