import { POSTGRES } from "../../test/stores";
import { accountsCases } from "./accounts.cases";

// Accounts, links, tokens and the start-up account steps on PostgreSQL: the same cases as on SQLite (accounts.test.ts).

accountsCases(POSTGRES);
