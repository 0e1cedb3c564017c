import { POSTGRES } from "../../test/stores";
import { txCases } from "./tx.cases";

// store.tx on PostgreSQL: the same cases as on SQLite (tx.test.ts).

txCases(POSTGRES);
