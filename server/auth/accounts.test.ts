import { SQLITE } from "../../test/stores";
import { accountsCases } from "./accounts.cases";

// Accounts, links, tokens and the start-up account steps on SQLite (the same cases run on PostgreSQL in
// accounts.pg.test.ts).

accountsCases(SQLITE);
