import type { Db } from "../client";
import { minuteOf } from "../../lib/counters";
import type { HistogramEntry } from "../../lib/latency-buckets";

// The overview's ITL trend rows (SQLite only so far; the other decode reads are db/store/decode.ts). Which to read and
// the percentiles are server/reads/decode.ts's.

const MAX_RAW = 200_000;

/** The p95-ITL histogram entries per bucket of `step` ms (a multiple of a minute) over the minutes overlapping [from, to). */
export function rolledItlP95Buckets(
  db: Db,
  from: number,
  to: number,
  step: number,
): ({ t: number } & HistogramEntry)[] {
  return db.$client
    .prepare(
      `SELECT minute - minute % @step AS t, bucket, sum(n) AS n FROM request_itl_1m WHERE stat = 1 AND minute >= @from AND minute < @to GROUP BY t, bucket LIMIT 200000`,
    )
    .all({ from: minuteOf(from), to, step }) as ({ t: number } & HistogramEntry)[];
}

/** Each request's p95 ITL (ms) with its bucket of `step` ms, ordered by bucket then value, for requests in [from, to). */
export function rawItlP95Rows(db: Db, from: number, to: number, step: number): { t: number; v: number }[] {
  return db.$client
    .prepare(
      `SELECT arrived_at - arrived_at % ? AS t, itl_ms_p95 AS v FROM requests WHERE arrived_at >= ? AND arrived_at < ? AND itl_ms_p95 IS NOT NULL ORDER BY t, v LIMIT ${MAX_RAW}`,
    )
    .all(step, from, to) as { t: number; v: number }[];
}
