import { describe, expect, it } from "vitest";
import { summarize } from "./itl";
import type { SimRequest } from "./types";
import { setup } from "./worker-harness";

/** p95 of all decode gaps of a busy aggregated worker's short requests, with or without a 30k-token prompt arriving every second. */
function decodeItlP95(longPrompts: boolean): number {
  const { submit, runUntil, host } = setup({ capacity: 40_000 });
  const short: SimRequest[] = [];
  for (let t = 0; t < 60_000; t += 250) {
    runUntil(t);
    short.push(submit(`s${t}`, 2_000, 400));
    if (longPrompts && t % 1_000 === 0) submit(`l${t}`, 30_000, 50);
  }
  runUntil();
  expect(host.now).toBeGreaterThan(60_000);
  const all: number[] = [];
  for (const r of short) all.push(...r.itlRuns!);
  return summarize(all).p95!;
}

describe("a long prompt's chunks share the pass with decodes", () => {
  it("raises the decode ITL p95 of a busy worker by at least 50%", () => {
    const quiet = decodeItlP95(false);
    const mixed = decodeItlP95(true);
    expect(quiet).toBeGreaterThan(15);
    expect(mixed).toBeGreaterThan(1.5 * quiet);
  });
});
