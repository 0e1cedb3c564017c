import { POSTGRES_PAGES } from "../../test/page-stores";
import { workersCases } from "./workers.cases";

// The workers procedures on PostgreSQL: the same cases and figures as on SQLite (workers.test.ts).

workersCases(POSTGRES_PAGES);
