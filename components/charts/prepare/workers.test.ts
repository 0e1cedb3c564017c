import { describe, expect, it } from "vitest";
import {
  classColor,
  classStacks,
  evictionBars,
  heatColor,
  heatmapRows,
  heatmapTicks,
  hitRateMultiples,
  NO_DATA_COLOR,
  percentSeries,
  stateBadges,
  UNCLASSIFIED,
} from "./workers";

const T0 = 1_764_417_600_000;
const W = { from: T0, to: T0 + 40_000, step: 10_000 };

describe("heatColor", () => {
  it.each<[number | null, string]>([
    [null, NO_DATA_COLOR],
    [Number.NaN, NO_DATA_COLOR],
    [0, "color-mix(in srgb, var(--heat-mid) 0%, var(--heat-low))"],
    [0.25, "color-mix(in srgb, var(--heat-mid) 50%, var(--heat-low))"],
    [0.5, "color-mix(in srgb, var(--heat-mid) 100%, var(--heat-low))"],
    [0.75, "color-mix(in srgb, var(--heat-high) 50%, var(--heat-mid))"],
    [1, "color-mix(in srgb, var(--heat-high) 100%, var(--heat-mid))"],
    [1.4, "color-mix(in srgb, var(--heat-high) 100%, var(--heat-mid))"],
    [-0.2, "color-mix(in srgb, var(--heat-mid) 0%, var(--heat-low))"],
  ])("heatColor(%j) = %s", (u, out) => {
    expect(heatColor(u)).toBe(out);
  });

  it("no data looks different from an idle (0 %) worker", () => {
    expect(heatColor(null)).not.toBe(heatColor(0));
  });
});

describe("heatmapRows", () => {
  it("one cell per bucket; missing buckets are no-data cells, labelled as such", () => {
    const rows = heatmapRows([{ workerId: "w1", t: [T0 + 10_000], util: [0.5], hitRate: [null] }], W, "UTC");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.cells.map((c) => c.util)).toEqual([null, 0.5, null, null]);
    expect(rows[0]!.cells[0]).toEqual({ t: T0, util: null, color: NO_DATA_COLOR, label: "w1 · 12:00:00 · no data" });
    expect(rows[0]!.cells[1]!.label).toBe("w1 · 12:00:10 · 50.0%");
  });

  it("ticks are evenly spaced bucket indexes", () => {
    expect(heatmapTicks(W, 2, "UTC")).toEqual([
      { index: 0, label: "12:00:00" },
      { index: 2, label: "12:00:20" },
    ]);
    expect(heatmapTicks({ from: T0, to: T0, step: 10_000 })).toEqual([]);
  });
});

describe("percentSeries and hitRateMultiples", () => {
  const columns = { t: [T0, T0 + 20_000], util: [0.25, 0], hitRate: [0.8002, null] };
  it("dense rows in percent with gaps as null", () => {
    expect(percentSeries(columns, W)).toEqual([
      { t: T0, hitRate: 80, util: 25 },
      { t: T0 + 10_000, hitRate: null, util: null },
      { t: T0 + 20_000, hitRate: null, util: 0 },
      { t: T0 + 30_000, hitRate: null, util: null },
    ]);
  });

  it("a bucket outside the window is not drawn; one at a start is, whatever the order of the columns", () => {
    const shuffled = { t: [T0 + 30_000, T0 - 10_000, T0], util: [0.5, 0.9, 0.1], hitRate: [null, 0.7, 0.2] };
    expect(percentSeries(shuffled, W)).toEqual([
      { t: T0, hitRate: 20, util: 10 },
      { t: T0 + 10_000, hitRate: null, util: null },
      { t: T0 + 20_000, hitRate: null, util: null },
      { t: T0 + 30_000, hitRate: null, util: 50 },
    ]);
  });

  it.each<[string, typeof columns, boolean]>([
    ["with hit-rate data", columns, false],
    ["only utilization", { t: [T0], util: [0.3], hitRate: [null] }, true],
    ["nothing", { t: [], util: [], hitRate: [] }, true],
  ])("a worker %s: empty = %s", (_name, c, empty) => {
    expect(hitRateMultiples([{ workerId: "w", ...c }], W)[0]!.empty).toBe(empty);
  });
});

describe("classStacks", () => {
  it("stacks blocks per class and bucket; buckets without events are null; unclassified last", () => {
    const s = classStacks(
      [
        { t: T0, retentionClass: "conversation", blocks: 2 },
        { t: T0, retentionClass: "system_prompt", blocks: 4 },
        { t: T0 + 20_000, retentionClass: null, blocks: 1 },
        { t: T0 + 20_000, retentionClass: "zeta", blocks: 5 },
      ],
      W,
    );
    expect(s.classes.map((c) => c.key)).toEqual(["system_prompt", "conversation", "zeta", UNCLASSIFIED]);
    expect(s.data).toEqual([
      { t: T0, system_prompt: 4, conversation: 2, zeta: 0, [UNCLASSIFIED]: 0 },
      { t: T0 + 10_000, system_prompt: null, conversation: null, zeta: null, [UNCLASSIFIED]: null },
      { t: T0 + 20_000, system_prompt: 0, conversation: 0, zeta: 5, [UNCLASSIFIED]: 1 },
      { t: T0 + 30_000, system_prompt: null, conversation: null, zeta: null, [UNCLASSIFIED]: null },
    ]);
    expect(s).toMatchObject({ anyClassified: true, empty: false });
  });

  it.each<[string, { t: number; retentionClass: string | null; blocks: number }[], boolean, boolean]>([
    ["no events", [], false, true],
    ["only unclassified", [{ t: T0, retentionClass: null, blocks: 3 }], false, false],
    ["classified", [{ t: T0, retentionClass: "conversation", blocks: 3 }], true, false],
  ])("%s: anyClassified %s, empty %s", (_name, rows, anyClassified, empty) => {
    expect(classStacks(rows, W)).toMatchObject({ anyClassified, empty });
  });

  it.each<[string, string]>([
    ["system_prompt", "var(--series-1)"],
    ["subagent_state", "var(--series-4)"],
    [UNCLASSIFIED, "var(--muted)"],
  ])("classColor(%s) = %s", (cls, color) => {
    expect(classColor(cls)).toBe(color);
  });

  it("an unknown class always gets the same colour", () => {
    expect(classColor("custom")).toBe(classColor("custom"));
  });
});

describe("evictionBars", () => {
  it("shares of removed blocks per reason", () => {
    expect(
      evictionBars([
        { reason: "capacity", blocks: 3, events: 2 },
        { reason: "cleared", blocks: 1, events: 1 },
      ]),
    ).toEqual([
      { reason: "capacity", blocks: 3, events: 2, share: 0.75, color: "var(--series-5)" },
      { reason: "cleared", blocks: 1, events: 1, share: 0.25, color: "var(--bad)" },
    ]);
  });

  it("a clear that dropped no counted blocks has no share (null, not 0 %)", () => {
    expect(evictionBars([{ reason: "cleared", blocks: 0, events: 1 }])[0]!.share).toBeNull();
  });
});

describe("stateBadges", () => {
  it.each<[{ state: "up" | "down" | "stale"; joined: boolean; left: boolean }, string[]]>([
    [{ state: "up", joined: false, left: false }, ["up:good"]],
    [{ state: "up", joined: true, left: false }, ["up:good", "joined:info"]],
    [{ state: "down", joined: false, left: true }, ["down:bad", "left:info"]],
    [{ state: "stale", joined: true, left: true }, ["stale:warn", "joined:info", "left:info"]],
  ])("%j → %j", (s, out) => {
    expect(stateBadges(s).map((b) => `${b.label}:${b.tone}`)).toEqual(out);
  });
});
