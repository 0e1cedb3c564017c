import { metricsCases, POSTGRES_METRICS } from "./metrics-endpoint.cases";

// GET /metrics on PostgreSQL: the same families as on SQLite (metrics-endpoint.test.ts), read from its store.

metricsCases(POSTGRES_METRICS);
