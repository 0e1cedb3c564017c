import { SQLITE_PAGES } from "../../test/page-stores";
import { previewsCases } from "./previews.cases";

// The previews procedures on SQLite; the same cases run on PostgreSQL in previews.pg.test.ts.

previewsCases(SQLITE_PAGES);
