import { POSTGRES } from "../../test/stores";
import { loginLimitCases } from "./login-limit.cases";

// The sign-in limit on PostgreSQL: the same cases as on SQLite (rate-limit.test.ts).

loginLimitCases(POSTGRES);
