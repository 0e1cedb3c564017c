import { POSTGRES_SINK } from "../sink.cases";
import { watchCases } from "./watch.cases";

// A watched trace directory on PostgreSQL: the same cases as on SQLite (watch.test.ts).

watchCases(POSTGRES_SINK);
