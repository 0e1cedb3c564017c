import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IngestRow } from "../rows/ingest";
import type { PgDb } from "./client";
import { insertEventsPg } from "./ingest";
import { DAY_MS, dayOf, dropPartitionsBefore, ensureDaysAhead, listPartitions, partitionName } from "./partitions";
import { minimal, parsed, T0 } from "../../test/events";
import { freshPg, PG_TEST_URL } from "../../test/pg";

// Retention on PostgreSQL drops whole daily partitions: raw tables by the hours cutoff, detail tables by the days one.

describe.skipIf(!PG_TEST_URL)("PostgreSQL retention by partition", () => {
  let pg: PgDb;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
  });
  afterAll(() => drop?.());

  const day = dayOf(T0);
  const d0 = day * DAY_MS;
  const count = async (table: string) =>
    Number((await pg.$client.unsafe(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);

  it("drops only partitions whose whole day is before each tier's cutoff, keeping the rows of later days", async () => {
    const events = [0, 1, 2, 3].flatMap((d) => [
      minimal["worker.stats"]({ id: `s${d}`, ts: d0 + d * DAY_MS + 1_000 }),
      minimal.tool({ id: `t${d}`, ts: d0 + d * DAY_MS + 1_000 }),
    ]);
    await insertEventsPg(pg, events.map(parsed) as IngestRow[]);
    // Raw: cutoff inside day 2 (day 2 is kept whole); detail: cutoff at the end of day 0 exactly.
    const dropped = await dropPartitionsBefore(pg.$client, { raw: d0 + 2 * DAY_MS + 5, detail: d0 + DAY_MS });
    expect(dropped).toEqual(
      [
        partitionName("kv_events", day),
        partitionName("worker_stats", day),
        partitionName("policy_acks", day),
        partitionName("planner_decisions", day),
        partitionName("reasoning_spans", day),
        partitionName("route_decisions", day),
        partitionName("tools", day),
        partitionName("worker_events", day),
        partitionName("kv_events", day + 1),
        partitionName("worker_stats", day + 1),
      ].sort((a, b) => dayOfName(a) - dayOfName(b) || a.localeCompare(b)),
    );
    expect(await count("worker_stats")).toBe(2);
    expect(await count("tools")).toBe(3);
    expect((await listPartitions(pg.$client)).some((p) => p.day === day)).toBe(false);
    expect(await dropPartitionsBefore(pg.$client, { raw: d0 + 2 * DAY_MS + 5, detail: d0 + DAY_MS })).toEqual([]);
  });

  it("a late event for a dropped day makes its partition again, so ingest never fails on retention", async () => {
    const out = await insertEventsPg(pg, [parsed(minimal["worker.stats"]({ id: "late", ts: d0 + 10 })) as IngestRow]);
    expect(out).toEqual(["accepted"]);
    expect(await count("worker_stats")).toBe(3);
  });

  it("makes today's and tomorrow's partitions ahead of any row", async () => {
    const now = d0 + 40 * DAY_MS + 123;
    await ensureDaysAhead(pg.$client, now, 1);
    const days = new Set((await listPartitions(pg.$client)).filter((p) => p.table === "kv_events").map((p) => p.day));
    expect(days.has(day + 40) && days.has(day + 41)).toBe(true);
  });
});

function dayOfName(name: string): number {
  return Number(name.slice(-8));
}
