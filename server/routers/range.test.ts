import { describe, expect, it } from "vitest";
import { parseRange } from "../../lib/time-range";
import { rangeInput } from "./range";

const q = (s: string) => new URLSearchParams(s);

describe("rangeInput", () => {
  it.each([
    "range=15m",
    "from=1000&to=2000",
    "from=-5000&to=1000",
    "from=0x10&to=0x20",
    "range=constructor",
    "from=1&to=2",
  ])("accepts every range parseRange returns for %s", (search) => {
    expect(rangeInput.safeParse(parseRange(q(search))).success).toBe(true);
  });
});
