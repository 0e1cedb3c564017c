import { POSTGRES_SESSIONS } from "../../test/session-stores";
import { sessionsCases } from "./sessions.cases";

// The sessions procedures on PostgreSQL: the same cases and figures as on SQLite (sessions.test.ts).

sessionsCases(POSTGRES_SESSIONS);
