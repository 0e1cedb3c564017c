import { PG_SKIP_REASON, PG_TEST_URL } from "./pg";

/** Vitest global setup: say once, up front, when the PostgreSQL suites will be skipped and why. */
export default function setup(): void {
  if (!PG_TEST_URL) console.log(PG_SKIP_REASON);
}
