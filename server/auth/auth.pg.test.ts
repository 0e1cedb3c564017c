import { POSTGRES } from "../../test/stores";
import { authStoreCases } from "./auth-store.cases";

// Sessions and token checks on PostgreSQL: the same cases as on SQLite (rate-limit.test.ts).

authStoreCases(POSTGRES);
