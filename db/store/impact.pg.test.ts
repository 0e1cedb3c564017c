import { POSTGRES_SESSIONS } from "../../test/session-stores";
import { impactCases } from "./impact.cases";

// The same windows on PostgreSQL as on SQLite (impact.test.ts).

impactCases(POSTGRES_SESSIONS);
