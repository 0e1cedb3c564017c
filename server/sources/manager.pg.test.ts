import { POSTGRES } from "../../test/stores";
import { managerCases } from "./manager.cases";

// The source manager on PostgreSQL: the same cases as on SQLite (manager.test.ts).

managerCases(POSTGRES);
