import { describe, expect, it } from "vitest";
import { placeMarks, snapMarks, type PolicyMark } from "./policy-marks";

const mark = (ts: number, kind = "retention", version = 1): PolicyMark => ({
  ts,
  kind,
  version,
  label: `${kind} v${version} published`,
});

describe("snapMarks", () => {
  const starts = [1_000, 2_000, 3_000];
  it.each<[string, PolicyMark[], { x: number; label: string }[]]>([
    ["a mark inside a bucket goes to its start", [mark(2_500)], [{ x: 2_000, label: "retention v1 published" }]],
    ["on a bucket start exactly", [mark(3_000, "routing", 4)], [{ x: 3_000, label: "routing v4 published" }]],
    ["inside the last bucket (before its end)", [mark(3_999)], [{ x: 3_000, label: "retention v1 published" }]],
    ["before the first bucket: dropped", [mark(999)], []],
    ["after the last bucket's end: dropped", [mark(4_000)], []],
    [
      "two in one bucket: one line naming both",
      [mark(1_100), mark(1_900, "routing", 2)],
      [{ x: 1_000, label: "retention v1, routing v2 published" }],
    ],
  ])("%s", (_n, marks, expected) => {
    expect(snapMarks(marks, starts, 1_000).map(({ x, label }) => ({ x, label }))).toEqual(expected);
  });
  it("no buckets: no marks", () => expect(snapMarks([mark(1)], [], 1_000)).toEqual([]));
  it("labels go left of lines in the right half, right of lines in the left half", () => {
    expect(snapMarks([mark(1_200), mark(3_500, "routing", 2)], starts, 1_000).map((m) => m.side)).toEqual([
      "right",
      "left",
    ]);
    expect(placeMarks([mark(2_000), mark(9_000, "routing", 2)], 1_000, 10_000).map((m) => m.side)).toEqual([
      "right",
      "left",
    ]);
  });
  it("unsorted bucket starts are fine", () =>
    expect(snapMarks([mark(2_100)], [3_000, 1_000, 2_000], 1_000)[0]!.x).toBe(2_000));
});

describe("placeMarks", () => {
  it.each<[string, PolicyMark[], number, { x: number; label: string }[]]>([
    [
      "inside the range, in time order",
      [mark(5_000, "routing", 2), mark(2_000)],
      0,
      [
        { x: 2_000, label: "retention v1 published" },
        { x: 5_000, label: "routing v2 published" },
      ],
    ],
    ["outside the range: dropped", [mark(500), mark(20_000)], 0, []],
    [
      "closer than the gap: joined",
      [mark(2_000), mark(2_400, "frontend", 3)],
      1_000,
      [{ x: 2_000, label: "retention v1, frontend v3 published" }],
    ],
  ])("%s", (_n, marks, gap, expected) => {
    expect(placeMarks(marks, 1_000, 10_000, gap).map(({ x, label }) => ({ x, label }))).toEqual(expected);
  });
});

describe("alert marks", () => {
  it("join with versions at one position, each alert by its own label", () => {
    const marks: PolicyMark[] = [
      { ts: 1_000, kind: "retention", version: 3, label: "retention v3 published" },
      { ts: 1_200, kind: "alert", version: 0, label: "alert preemptions firing (w1)", href: "/alerts" },
      { ts: 1_300, kind: "alert", version: 1, label: "alert kv_full firing (w2)", href: "/alerts" },
    ];
    expect(snapMarks(marks, [1_000], 1_000).map((m) => m.label)).toEqual([
      "retention v3 published; alert preemptions firing (w1); alert kv_full firing (w2)",
    ]);
    expect(placeMarks(marks.slice(1), 0, 10_000, 500).map((m) => m.label)).toEqual([
      "alert preemptions firing (w1); alert kv_full firing (w2)",
    ]);
  });
});
