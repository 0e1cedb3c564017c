import { describe, expect, it } from "vitest";
import { AppError } from "../../errors";
import { missRatioCurves } from "./mrc";
import { capacityCsv, capacityReport, MAX_CAPACITIES, parseCapacities, type ReportOptions } from "./report";
import { generateTrace, turnOf } from "./test-support";

const trace = generateTrace({ seed: 3, trajectories: 30, turns: 12, workers: 3, growth: 6 });
const window = { turns: trace.turns, firstRuns: trace.firstRuns };
const base = { maxBlocks: 400, workers: 3, points: 40, at: [100] };
const options = (o: Partial<ReportOptions> = {}): ReportOptions => ({
  base,
  capacities: null,
  target: null,
  bytesPerToken: 100_000,
  memoryBytes: 1e9,
  ...o,
});

describe("parseCapacities", () => {
  it.each([
    [null, null],
    ["", null],
    ["  ", null],
    ["100", [100]],
    ["300, 100,100 ,0", [0, 100, 300]],
    [
      Array.from({ length: MAX_CAPACITIES }, (_, i) => i).join(","),
      Array.from({ length: MAX_CAPACITIES }, (_, i) => i),
    ],
  ])("reads %j as %j", (text, want) => {
    expect(parseCapacities(text)).toEqual(want);
  });

  it.each([
    ["-1", '"-1" is not a whole number'],
    ["1.5", '"1.5" is not a whole number'],
    ["1e3", '"1e3" is not a whole number'],
    ["100,,200", '"" is not a whole number'],
    ["abc", '"abc" is not a whole number'],
    ["1000000000", '"1000000000" is not a whole number'],
    [Array.from({ length: MAX_CAPACITIES + 1 }, () => "1").join(","), `at most ${MAX_CAPACITIES} block counts`],
  ])("refuses %j (400: %s)", (text, message) => {
    let err: unknown;
    try {
      parseCapacities(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("BAD_REQUEST");
    expect((err as AppError).message).toContain(message);
  });
});

describe("capacityReport", () => {
  it("gives both curves as the exact pass computes them, in blocks, tokens and GB, with the knee and today's size", () => {
    const r = capacityReport(window, options({ target: 0.5 }));
    if (r.empty !== null) throw new Error(r.empty);
    const exact = missRatioCurves(window, base);
    if (exact.empty) throw new Error(exact.empty);
    expect(r.sampling).toBeNull();
    expect(r.today_blocks).toBe(100);
    expect(r.curves.map((c) => c.scope)).toEqual(["shared", ...exact.byWorker.map((w) => `worker:${w.workerId}`)]);
    expect(r.curves.length).toBeGreaterThan(2);
    expect(r.per_worker.points.map((p) => [p.blocks, p.hit_tokens])).toEqual(
      exact.perWorker.points.map((p) => [p.blocks, p.hitTokens]),
    );
    // The shared cache on the per-worker axis: B per worker is B × 3 in all.
    expect(r.curves[0]!.points.map((p) => [p.blocks, p.total_blocks, p.hit_tokens])).toEqual(
      exact.shared.points.map((p) => [p.blocks / 3, p.blocks, p.hitTokens]),
    );
    r.curves.slice(1).forEach((c, i) => {
      const w = exact.byWorker[i]!;
      expect([c.turns, c.input_tokens]).toEqual([w.turns, w.inputTokens]);
      expect(c.points.map((p) => p.hit_rate)).toEqual(w.curve.points.map((p) => p.hitRate));
      expect(c.points[0]!.by_class).toBeUndefined();
    });
    const p = r.per_worker.points[10]!;
    expect(p.tokens).toBe(p.blocks * r.block_size);
    expect(p.gigabytes).toBeCloseTo((p.tokens * 100_000) / 1e9, 12);
    // The shared cache is at least as good as split caches of the same KV in all.
    expect(r.curves[0]!.points.at(-1)!.hit_rate).toBeGreaterThanOrEqual(r.per_worker.points.at(-1)!.hit_rate);
    expect(r.knee.per_worker).not.toBeNull();
    const a = r.answer!.per_worker;
    expect(a.target).toBe(0.5);
    expect(a.more_than_today!.blocks).toBe(Math.max(0, a.size!.blocks - 100));
    expect(r.answer!.shared.more_than_today!.blocks).toBe(Math.max(0, r.answer!.shared.size!.blocks - 100));
  });

  it("with capacities, answers exactly those per-worker sizes (the shared curve's × workers)", () => {
    const r = capacityReport(window, options({ capacities: [0, 37, 100, 250] }));
    if (r.empty !== null) throw new Error(r.empty);
    const exact = missRatioCurves(window, { ...base, points: 400, maxBlocks: 400 });
    if (exact.empty) throw new Error(exact.empty);
    expect(r.per_worker.points.map((p) => p.blocks)).toEqual([0, 37, 100, 250]);
    expect(r.curves[0]!.points.map((p) => [p.blocks, p.total_blocks])).toEqual([
      [0, 0],
      [37, 111],
      [100, 300],
      [250, 750],
    ]);
    for (const c of r.curves.slice(1)) expect(c.points.map((p) => p.blocks)).toEqual([0, 37, 100, 250]);
    const at = (blocks: number) => exact.perWorker.points.find((p) => p.blocks === blocks)!.hitTokens;
    expect(r.per_worker.points.map((p) => p.hit_tokens)).toEqual([0, 37, 100, 250].map(at));
    expect(r.knee).toEqual({ per_worker: null, shared: null });
  });

  it("says so for a window without chains rather than drawing a flat line", () => {
    const bare = { turns: [turnOf({ blocks: null, arrivedAt: 1, phase: "window", inputTokens: 500 })] };
    const r = capacityReport(bare, options());
    expect(r).toEqual({ empty: "no chains in the window", turns: 1, input_tokens: 500 });
    expect(capacityCsv(r)).toBe("scope,blocks,tokens,gigabytes,hit_rate,hit_tokens\n");
  });

  it.each([
    [{ target: 0 }, "target hit rate must be in (0, 1]"],
    [{ target: 1.5 }, "target hit rate must be in (0, 1]"],
    [{ bytesPerToken: 0 }, "bytes per token must be above 0"],
    [{ memoryBytes: 0 }, "memoryBytes must be above 0"],
  ])("refuses %j (400)", (o, message) => {
    expect(() => capacityReport(window, options(o))).toThrow(message);
  });

  it("samples beyond its memory budget and states the rate and error", () => {
    const r = capacityReport(window, options({ memoryBytes: 10_000 }));
    if (r.empty !== null) throw new Error(r.empty);
    expect(r.sampling).toMatchObject({ rate: expect.any(Number), method: expect.any(String) });
    expect(r.sampling!.rate).toBeLessThan(1);
  });

  it("writes CSV rows of both curves", () => {
    const r = capacityReport(window, options({ capacities: [10, 20] }));
    const lines = capacityCsv(r).trim().split("\n");
    expect(lines[0]).toBe("scope,blocks,tokens,gigabytes,hit_rate,hit_tokens");
    expect(lines.slice(1, 5).map((l) => l.split(",").slice(0, 2).join(","))).toEqual([
      "per_worker,10",
      "per_worker,20",
      "shared,10",
      "shared,20",
    ]);
    expect(lines[5]).toMatch(/^worker:[^,]+,10,/);
    expect(lines.length).toBe(1 + 2 * (2 + 3));
  });
});
