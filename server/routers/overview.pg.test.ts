import { POSTGRES_PAGES } from "../../test/page-stores";
import { overviewFleetCases } from "./overview-fleet.cases";
import { overviewCases } from "./overview.cases";

// overview.summary on PostgreSQL: the same cases and figures as on SQLite (overview.test.ts).

overviewCases(POSTGRES_PAGES);
overviewFleetCases(POSTGRES_PAGES);
