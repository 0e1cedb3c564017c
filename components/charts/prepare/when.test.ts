import { describe, expect, it } from "vitest";
import { formatWhen } from "./when";

const T0 = 1_764_417_600_000; // 2025-11-29T12:00:00Z

describe("formatWhen", () => {
  it.each<[number, number, string]>([
    [T0 + 5_000, T0 + 60_000, "12:00:05"],
    [T0 - 13 * 3_600_000, T0, "2025-11-28 23:00:00"],
    [T0, T0 + 3 * 86_400_000, "2025-11-29 12:00:00"],
  ])("formatWhen(%d, %d)", (ts, now, out) => {
    expect(formatWhen(ts, now, "UTC")).toBe(out);
  });
});
