import { isPgUnavailable } from "../../../db/pg/client";
import { AppError } from "../../errors";
import { errorMessage, log } from "../../observability/logger";

/** Seconds a sender is asked to wait before retrying while PostgreSQL is unreachable. */
export const PG_RETRY_AFTER_SECONDS = 5;

let lastLogged = -Infinity;

/**
 * The error for a request that failed because PostgreSQL is unreachable: UNAVAILABLE (503) with Retry-After, saying
 * the batch may not have been stored (re-sent events already stored answer as duplicates); null for any other error.
 * Logged once in 10 s at most. The PostgreSQL ingest thread answers with it, and the route rebuilds it.
 */
export function pgUnavailableError(err: unknown): AppError | null {
  if (!isPgUnavailable(err)) return null;
  const now = Date.now();
  if (now - lastLogged >= 10_000) {
    lastLogged = now;
    log().warn({ err: errorMessage(rootCause(err)) }, "PostgreSQL is unreachable: answering 503 until it returns");
  }
  return new AppError(
    "UNAVAILABLE",
    `the database (PostgreSQL) is unreachable: this request may not have been stored; send it again in ${PG_RETRY_AFTER_SECONDS} s (events already stored answer as duplicates)`,
    { retry_after: PG_RETRY_AFTER_SECONDS, pg_unavailable: true },
  );
}

/**
 * The reply for a request that failed because PostgreSQL is unreachable (the driver's error, or the error the ingest
 * thread answered with): 503 with Retry-After; null for any other error.
 */
export function pgUnavailableResponse(err: unknown): Response | null {
  const rebuilt =
    err instanceof AppError && (err.details as { pg_unavailable?: unknown } | undefined)?.pg_unavailable === true;
  const e = rebuilt ? err : pgUnavailableError(err);
  return (
    e &&
    Response.json({ error: e.message }, { status: 503, headers: { "Retry-After": String(PG_RETRY_AFTER_SECONDS) } })
  );
}

/** The innermost `cause` (drizzle wraps the driver's error in one naming the query and its parameters). */
function rootCause(err: unknown): unknown {
  let e = err;
  for (let depth = 0; depth < 5 && (e as { cause?: unknown } | null)?.cause; depth++)
    e = (e as { cause: unknown }).cause;
  return e;
}
