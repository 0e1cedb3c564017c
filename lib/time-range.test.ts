import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRESET,
  MAX_SPAN_MS,
  parseRange,
  PRESETS,
  rangeQuery,
  resolveRange,
  type Preset,
  type RangeSpec,
} from "./time-range";

const NOW = 1_764_421_200_000;
const q = (s: string) => new URLSearchParams(s);
const DEFAULT: RangeSpec = { preset: DEFAULT_PRESET };

describe("parseRange", () => {
  it.each<[string, RangeSpec]>([
    ...(Object.keys(PRESETS) as Preset[]).map((p): [string, RangeSpec] => [`range=${p}`, { preset: p }]),
    ["from=1000&to=2000", { from: 1000, to: 2000 }],
    [`from=${NOW - MAX_SPAN_MS}&to=${NOW}`, { from: NOW - MAX_SPAN_MS, to: NOW }],
    ["range=1h&from=1000&to=2000", { preset: "1h" }],
    ["range=2h&from=1000&to=2000", { from: 1000, to: 2000 }],
  ])("%s → %j", (search, spec) => {
    expect(parseRange(q(search))).toEqual(spec);
  });

  it.each([
    ["nothing", ""],
    ["unknown preset", "range=2h"],
    ["preset in other case", "range=15M"],
    ["empty preset", "range="],
    ["only from", "from=1000"],
    ["only to", "to=2000"],
    ["to equal to from", "from=1000&to=1000"],
    ["to before from", "from=2000&to=1000"],
    ["span over 31 days", `from=${NOW - MAX_SPAN_MS - 1}&to=${NOW}`],
    ["non-integer bounds", "from=1000.5&to=2000"],
    ["words", "from=yesterday&to=now"],
    ["empty bounds", "from=&to="],
    ["infinite bound", "from=0&to=Infinity"],
    ["preset named like an Object.prototype member (constructor)", "range=constructor"],
    ["preset named like an Object.prototype member (toString)", "range=toString"],
    ["preset __proto__", "range=__proto__"],
  ])("falls back to the default preset for %s", (_name, search) => {
    expect(parseRange(q(search))).toEqual(DEFAULT);
  });
});

describe("resolveRange", () => {
  it.each(Object.entries(PRESETS) as [Preset, number][])(
    "preset %s ends now, spans %i ms and is live",
    (preset, span) => {
      expect(resolveRange({ preset }, NOW)).toEqual({ from: NOW - span, to: NOW, live: true });
    },
  );

  it("fixed bounds are kept and not live", () => {
    expect(resolveRange({ from: 1000, to: 2000 }, NOW)).toEqual({ from: 1000, to: 2000, live: false });
  });

  it("every parsed URL resolves to finite bounds", () => {
    for (const search of ["", "range=1h", "range=constructor", "range=__proto__", "from=1&to=2"]) {
      const r = resolveRange(parseRange(q(search)), NOW);
      expect(Number.isFinite(r.from) && Number.isFinite(r.to) && r.to > r.from).toBe(true);
    }
  });
});

describe("rangeQuery", () => {
  it.each<[RangeSpec, string]>([
    [{ preset: "15m" }, "range=15m"],
    [{ preset: "7d" }, "range=7d"],
    [{ from: 1000, to: 2000 }, "from=1000&to=2000"],
  ])("%j → %s", (spec, search) => {
    expect(rangeQuery(spec)).toBe(search);
  });

  it.each<[RangeSpec]>([
    ...(Object.keys(PRESETS) as Preset[]).map((preset): [RangeSpec] => [{ preset }]),
    [{ from: NOW - 3_600_000, to: NOW }],
    [{ from: NOW - MAX_SPAN_MS, to: NOW }],
  ])("round-trips %j through the URL", (spec) => {
    expect(parseRange(q(rangeQuery(spec)))).toEqual(spec);
  });
});
