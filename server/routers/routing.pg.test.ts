import { POSTGRES_PAGES } from "../../test/page-stores";
import { routingCases } from "./routing.cases";

// The routing procedures on PostgreSQL: the same cases and figures as on SQLite (routing.test.ts).

routingCases(POSTGRES_PAGES);
