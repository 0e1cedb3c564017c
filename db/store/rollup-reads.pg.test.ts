import { POSTGRES_PAGES } from "../../test/page-stores";
import { rollupReadCases } from "./rollup-reads.cases";

// The same ranges on PostgreSQL as on SQLite (rollup-reads.test.ts).

rollupReadCases(POSTGRES_PAGES);
