import { SQLITE_PAGES } from "../../test/page-stores";
import { tiersCases } from "./tiers.cases";

// The tiers procedures on SQLite; the same cases run on PostgreSQL in tiers.pg.test.ts.

tiersCases(SQLITE_PAGES);
