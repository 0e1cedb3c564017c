import { POSTGRES_PAGES } from "../../test/page-stores";
import { tiersCases } from "./tiers.cases";

// The tiers procedures on PostgreSQL: the same cases and figures as on SQLite (tiers.test.ts).

tiersCases(POSTGRES_PAGES);
