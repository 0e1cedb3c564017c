import { POSTGRES_PAGES } from "../../test/page-stores";
import { plannerCases } from "./planner.cases";

// The planner procedures on PostgreSQL: the same cases and figures as on SQLite (planner.test.ts).

plannerCases(POSTGRES_PAGES);
