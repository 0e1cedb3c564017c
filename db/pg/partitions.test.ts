import { describe, expect, it } from "vitest";
import { DAY_MS, dayOf, dayOfPartition, partitionName } from "./partitions";

describe("daily partition names", () => {
  it.each([
    [Date.UTC(2025, 10, 29, 12), "kv_events_d20251129"],
    [Date.UTC(2025, 10, 29, 0), "kv_events_d20251129"],
    [Date.UTC(2025, 10, 30) - 1, "kv_events_d20251129"],
    [Date.UTC(2026, 0, 1), "kv_events_d20260101"],
  ])("ts %i is in %s, and the name reads back as its day", (ts, name) => {
    expect(partitionName("kv_events", dayOf(ts))).toBe(name);
    expect(dayOfPartition("kv_events", name)).toBe(dayOf(ts));
    expect(dayOf(ts) * DAY_MS).toBeLessThanOrEqual(ts);
  });

  it.each([
    ["kv_events", "kv_events_1"],
    ["kv_events", "worker_stats_d20251129"],
    ["kv_events", "kv_events_d2025112"],
    ["kv_events", "kv_events_d20251129_old"],
    ["tools", "kv_events_d20251129"],
  ])("%s: %s is not one of its day partitions", (table, name) => {
    expect(dayOfPartition(table, name)).toBeNull();
  });
});
