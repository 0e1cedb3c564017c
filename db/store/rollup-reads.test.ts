import { SQLITE_PAGES } from "../../test/page-stores";
import { rollupReadCases } from "./rollup-reads.cases";

rollupReadCases(SQLITE_PAGES);
