import { describe, expect, it } from "vitest";
import { compareRows, figuresOf, fmt, formatRows, parseCompareArgs, runOrder } from "./bench-compare-figures";

const SCRIPTS = ["build", "bench:sim", "bench:storage", "bench:compare", "test"];

describe("parseCompareArgs", () => {
  it.each<[string, string[], { base: string; runs: number; bench: string; args: string[] }]>([
    ["defaults: HEAD, two rounds", ["bench:sim"], { base: "HEAD", runs: 2, bench: "bench:sim", args: [] }],
    ["the bench: prefix may be left out", ["sim"], { base: "HEAD", runs: 2, bench: "bench:sim", args: [] }],
    [
      "options, then the benchmark's own arguments (its --flags too)",
      ["--base", "abc123", "--runs=3", "bench:storage", "--minutes", "20", "--engine", "both"],
      { base: "abc123", runs: 3, bench: "bench:storage", args: ["--minutes", "20", "--engine", "both"] },
    ],
    [
      "a leading -- (npm run passes it on) is skipped",
      ["--", "--runs", "1", "storage"],
      { base: "HEAD", runs: 1, bench: "bench:storage", args: [] },
    ],
  ])("%s", (_, argv, want) => {
    expect(parseCompareArgs(argv, SCRIPTS)).toEqual({ ok: true, options: want });
  });

  it.each<[string, string[], RegExp]>([
    ["no benchmark", [], /name the benchmark/],
    ["no benchmark after the options", ["--runs", "2"], /name the benchmark/],
    [
      "an unknown benchmark, the known ones listed",
      ["bench:nope"],
      /no benchmark "bench:nope": one of bench:sim, bench:storage$/,
    ],
    ["not a benchmark", ["test"], /no benchmark "test"/],
    ["itself", ["compare"], /no benchmark "compare"/],
    ["--runs 0", ["--runs", "0", "sim"], /--runs takes a whole number from 1 to 20, not "0"/],
    ["--runs 21", ["--runs", "21", "sim"], /from 1 to 20/],
    ["--runs 1.5", ["--runs=1.5", "sim"], /not "1.5"/],
    ["--runs without a value", ["--runs"], /--runs needs a value/],
    ["--base without a value", ["--base=", "sim"], /--base needs a value/],
    ["--base that reads as an option", ["--base", "-x", "sim"], /--base takes a revision, not "-x"/],
    ["an unknown option", ["--fast", "sim"], /unknown option --fast/],
  ])("refuses %s", (_, argv, error) => {
    const r = parseCompareArgs(argv, SCRIPTS);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(error);
  });
});

describe("runOrder", () => {
  it("starts with the base and swaps the order every round", () => {
    expect(runOrder(3)).toEqual([
      ["base", "current"],
      ["current", "base"],
      ["base", "current"],
    ]);
  });
});

describe("figuresOf", () => {
  it("reads LABEL: NUMBER UNIT lines and nothing else", () => {
    const output = [
      "steady scenario, 3600 simulated s, seed 1",
      "wall: 2.5 s (cpu 3.6 s)",
      "speed: 1441.7 x real time (990.0 x per CPU second: steadier on a shared machine; target ≥ 3000 x)",
      "db: 87.2 MB per simulated hour (target ≤ 50; 87.2 MB; baseline NDJSON 502.5 MB per hour, ratio 0.174)",
      "ingest: 27663 events/s (target ≥ 30,000; 62.0 MiB/s); baseline raw inserts, ratio 0.3",
      "ingest CPU: dashboard 10.1 s (21165 events per CPU-second, all its threads), sender 1.5 s, over 7.7 s of wall time",
      "ratio: 0.177 (target ≥ 0.25)",
      "  median preview, one thread: 3.0 s per hour, wall ratio 1.73",
      "started at 12:30: 5 things",
      "version: 1.2.3",
      "delta: -4.5 ms",
      "No users yet: create the first admin at http://localhost:38219/setup",
      "attribution on postgres: caught up 212.6 s after ingest ended",
      "its CPU by thread: PostgreSQL ingest threads 4.3 s, other (node) 3.2 s, lowered priority (attribution, nice 10) 0.7 s",
      "trace: p50 14.8 ms p95 25.1 ms",
      "a: one two three four 5 s",
    ].join("\n");
    expect(figuresOf(output)).toEqual([
      { key: "wall", value: 2.5, unit: "s" },
      { key: "speed", value: 1441.7, unit: "x real time" },
      { key: "db", value: 87.2, unit: "MB per simulated hour" },
      { key: "ingest", value: 27663, unit: "events/s" },
      { key: "ingest: ratio", value: 0.3, unit: "" },
      { key: "ingest CPU: dashboard", value: 10.1, unit: "s" },
      { key: "ingest CPU: sender", value: 1.5, unit: "s" },
      { key: "ingest CPU: over", value: 7.7, unit: "s of wall time" },
      { key: "ratio", value: 0.177, unit: "" },
      { key: "median preview, one thread", value: 3, unit: "s per hour" },
      { key: "median preview, one thread: wall ratio", value: 1.73, unit: "" },
      { key: "delta", value: -4.5, unit: "ms" },
      { key: "attribution on postgres: caught up", value: 212.6, unit: "s after ingest ended" },
      { key: "its CPU by thread: PostgreSQL ingest threads", value: 4.3, unit: "s" },
      { key: "its CPU by thread: other (node)", value: 3.2, unit: "s" },
      { key: "its CPU by thread: lowered priority (attribution, nice 10)", value: 0.7, unit: "s" },
      { key: "trace: p50", value: 14.8, unit: "ms" },
    ]);
  });

  it("numbers a label printed again (one per scenario)", () => {
    expect(figuresOf("a: 1 s\nb: 2 s\na: 3 s\na: 4 s").map((f) => f.key)).toEqual(["a", "b", "a #2", "a #3"]);
  });
});

describe("fmt", () => {
  it.each<[number, string]>([
    [2840, "2840"],
    [2840.5, "2840.5"],
    [99575.5, "99575.5"],
    [1675.25, "1675.3"],
    [2.15, "2.15"],
    [0.1775, "0.1775"],
    [0.30000000000000004, "0.3"],
    [1.5, "1.5"],
    [-4.25, "-4.25"],
  ])("%d → %s", (x, want) => expect(fmt(x)).toBe(want));
});

describe("compareRows and formatRows", () => {
  const base = [figuresOf("speed: 100 x real time\nratio: 0.2"), figuresOf("speed: 110 x real time\nratio: 0.2")];
  const current = [figuresOf("speed: 150 x real time\nnew: 7 s"), figuresOf("speed: 160 x real time\nnew: 9 s")];

  it("sets each figure's runs side by side with current median ÷ base median", () => {
    expect(compareRows(base, current)).toEqual([
      { key: "speed", unit: "x real time", base: [100, 110], current: [150, 160], ratio: 155 / 105 },
      { key: "new", unit: "s", base: [], current: [7, 9], ratio: null },
      { key: "ratio", unit: "", base: [0.2, 0.2], current: [], ratio: null },
    ]);
  });

  it("prints an aligned table", () => {
    const lines = formatRows(compareRows(base, current), "HEAD (abc1234)", "abc1234 + changes").split("\n");
    expect(lines[0]).toMatch(/^figure\s+unit\s+HEAD \(abc1234\) \(runs; median\)\s+abc1234 \+ changes/);
    expect(lines[1]).toMatch(/^speed\s+x real time\s+100 · 110; 105\s+150 · 160; 155\s+1\.476$/);
    expect(lines[2]).toMatch(/^new\s+s\s+—\s+7 · 9; 8\s+—$/);
    // Every row's second column starts where the header's does.
    const at = lines[0]!.indexOf("unit");
    expect(lines.slice(1).map((l) => l.slice(at).split(" ")[0])).toEqual(["x", "s", ""]);
  });
});
