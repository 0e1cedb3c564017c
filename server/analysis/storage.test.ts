import { describe, expect, it } from "vitest";
import { keptFor, storageSummary } from "./storage";

const S = { rawHours: 24, days: 30, summaryDays: 400 };

describe("storageSummary", () => {
  it("adds file and WAL and labels each kind with its retention", () => {
    const got = storageSummary(
      { fileBytes: 4_096_000, walBytes: 1_000 },
      [
        { table: "kv_events", label: "KV events", tier: "raw", oldest: 5 },
        { table: "requests", label: "Requests", tier: "detail", oldest: null },
        { table: "requests_1m", label: "Request rollups", tier: "summary", oldest: 7 },
      ],
      S,
    );
    expect(got).toEqual({
      fileBytes: 4_096_000,
      walBytes: 1_000,
      totalBytes: 4_097_000,
      kinds: [
        { table: "kv_events", label: "KV events", oldest: 5, keptFor: "24 h" },
        { table: "requests", label: "Requests", oldest: null, keptFor: "30 days" },
        { table: "requests_1m", label: "Request rollups", oldest: 7, keptFor: "400 days" },
      ],
    });
  });

  it.each([
    ["raw", { ...S, rawHours: 0.5 }, "0.5 h"],
    ["detail", { ...S, days: 7 }, "7 days"],
    ["summary", S, "400 days"],
  ] as const)("keptFor(%s)", (tier, s, want) => {
    expect(keptFor(tier, s)).toBe(want);
  });
});
