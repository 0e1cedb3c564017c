import { SQLITE } from "../../test/stores";
import { managerCases } from "./manager.cases";

// The source manager on SQLite (the same cases run on PostgreSQL in manager.pg.test.ts).

managerCases(SQLITE);
