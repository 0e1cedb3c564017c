import { POSTGRES } from "../../test/stores";
import { devicesCases } from "./devices.cases";

// Known devices on PostgreSQL: the same cases as on SQLite (devices.test.ts).

devicesCases(POSTGRES);
