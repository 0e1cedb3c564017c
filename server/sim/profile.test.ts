import { describe, expect, it } from "vitest";
import { budgetProblem, parseEngineProfile } from "./profile";
import { decodeMs, DEFAULT_ENGINE_TIMING, prefillMs } from "./timing";

const good = {
  prefill: { new_tokens: [1_000, 8_000], ms: [20, 100] },
  decode: {
    active_kv_tokens: [0, 100_000],
    context_tokens: [1_000, 10_000],
    ms: [
      [10, 12],
      [20, 30],
    ],
  },
  max_num_batched_tokens: 4_096,
};

describe("engine profile files", () => {
  it("interpolates measured prefill and decode times between their points", () => {
    const r = parseEngineProfile(JSON.stringify(good), "gpu.json");
    if (!r.ok) throw new Error(r.error);
    expect(r.timing.source).toBe("gpu.json");
    expect(r.timing.maxBatchedTokens).toBe(4_096);
    expect(prefillMs(r.timing, 4_500)).toBeCloseTo(60, 6);
    expect(prefillMs(r.timing, 0)).toBe(0);
    expect(decodeMs(r.timing, 50_000, 50)).toBeCloseTo(15, 6);
    expect(decodeMs(r.timing, 100_000, 10)).toBeCloseTo(30, 6);
    expect(decodeMs(r.timing, 100_000, 0)).toBe(0);
  });

  it.each([
    {
      name: "points that do not increase",
      doc: { prefill: { new_tokens: [1_000, 1_000], ms: [1, 2] } },
      want: /^p\.json:1: prefill\.new_tokens\[1\]: must be greater/,
    },
    {
      name: "a time that falls",
      doc: { prefill: { new_tokens: [1, 2, 3], ms: [5, 4, 6] } },
      want: /prefill\.ms\[1\]: is below the time before it/,
    },
    {
      name: "a negative time",
      doc: { prefill: { new_tokens: [1], ms: [-1] } },
      want: /prefill\.ms\[0\]: must be a non-negative/,
    },
    {
      name: "a negative point",
      doc: { decode: { active_kv_tokens: [-5], context_tokens: [1], ms: [[1]] } },
      want: /decode\.active_kv_tokens\[0\]: must be a non-negative/,
    },
    {
      name: "a decode row faster with more KV",
      doc: { decode: { active_kv_tokens: [0, 10], context_tokens: [1], ms: [[5], [4]] } },
      want: /decode\.ms\[1\]\[0\]: is below the row/,
    },
    { name: "an unknown field", doc: { prefil: {} }, want: /prefil: is not a profile field/ },
  ])("refuses $name, naming file, line and field", ({ doc, want }) => {
    const r = parseEngineProfile(JSON.stringify(doc), "p.json");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(want);
  });

  it("names the line of the bad field in a formatted file", () => {
    const text = JSON.stringify(
      {
        decode: { active_kv_tokens: [0, 10], context_tokens: [1], ms: [[5], [4]] },
        prefill: { new_tokens: [1, 2], ms: [1, 2] },
      },
      null,
      2,
    );
    const r = parseEngineProfile(text, "p.json");
    expect(r.ok ? "" : r.error).toMatch(/^p\.json:\d+: decode\.ms\[1\]\[0\]/);
    const line = Number((r.ok ? "" : r.error).split(":")[1]);
    expect(text.split("\n")[line - 1]).toContain('"ms"');
  });

  it("refuses a token budget below the block size", () => {
    expect(budgetProblem({ ...DEFAULT_ENGINE_TIMING, maxBatchedTokens: 32 }, 64)).toMatch(/below the block size 64/);
    expect(budgetProblem(DEFAULT_ENGINE_TIMING, 64)).toBeNull();
  });
});
