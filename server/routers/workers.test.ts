import { SQLITE_PAGES } from "../../test/page-stores";
import { workersCases } from "./workers.cases";

// The workers procedures on SQLite; the same cases run on PostgreSQL in workers.pg.test.ts.

workersCases(SQLITE_PAGES);
