import { describe, expect, it } from "vitest";
import { contentId } from "./hashing";
import { summarize } from "./itl";
import { HashView } from "./stream";
import { DEFAULT_ENGINE_TIMING, handoffMs, prefillMs, setupMs } from "./timing";
import type { SimRequest } from "./types";
import type { PassRecord, SimWorker } from "./worker";
import { prompt, setup } from "./worker-harness";

const ttft = (r: SimRequest) => r.firstTokenAt! - r.arrivedAt;
/** Tokens per request in each pass: "id:tokens" with a "p" for a prompt chunk. */
const plan = (p: PassRecord) => p.entries.map((e) => `${e.id}:${e.tokens}${e.prefill ? "p" : ""}`).join(" ");

describe("worker timing (calibrated to NVIDIA's 52k-token figures)", () => {
  it("takes about 912 ms to first token with nothing cached", () => {
    const { submit, runUntil } = setup();
    const r = submit("a", 52_000, 100);
    runUntil();
    expect(r.cachedTokens).toBe(0);
    expect(ttft(r)).toBeGreaterThan(912 * 0.95);
    expect(ttft(r)).toBeLessThan(912 * 1.05);
  });

  it("takes about 168 ms with its prefix cached", () => {
    const { submit, runUntil } = setup();
    const stream = prompt(52_000);
    const view = new HashView(null);
    submit("a", 52_000, 10, view, stream);
    runUntil();
    const r = submit("b", 52_000, 10, view, stream);
    runUntil();
    expect(r.cachedTokens).toBe(Math.floor(52_000 / 64) * 64);
    expect(ttft(r)).toBeGreaterThan(168 * 0.95);
    expect(ttft(r)).toBeLessThan(168 * 1.05);
  });

  it("misses everything when only block 0 differs (a per-session header)", () => {
    const { submit, runUntil } = setup();
    const stream = prompt(52_000);
    submit("a", 52_000, 10, new HashView(contentId(9, 1)), stream);
    runUntil();
    const r = submit("b", 52_000, 10, new HashView(contentId(9, 2)), stream);
    runUntil();
    expect(r.cachedTokens).toBe(0);
    expect(ttft(r)).toBeGreaterThan(900);
  });
});

describe("passes: budget, chunks, admission, preemption", () => {
  it.each([
    {
      name: "a prompt larger than the budget runs in budget-sized chunks",
      prompts: [20_000],
      budget: 8_192,
      want: ["a:8192p", "a:8192p", "a:3616p", "a:1"],
    },
    {
      name: "two prompts share a pass's budget in arrival order",
      prompts: [6_000, 6_000],
      budget: 8_192,
      want: ["a:6000p b:2192p", "a:1 b:3808p", "a:1 b:1"],
    },
    {
      name: "a smaller budget makes more, smaller chunks",
      prompts: [5_000],
      budget: 2_048,
      want: ["a:2048p", "a:2048p", "a:904p", "a:1"],
    },
  ])("$name", ({ prompts, budget, want }) => {
    const { submit, runUntil, passes } = setup({ timing: { maxBatchedTokens: budget } });
    prompts.forEach((n, i) => submit(String.fromCharCode(97 + i), n, 3));
    runUntil();
    expect(passes.slice(0, want.length).map(plan)).toEqual(want);
  });

  it("admits no more requests than max_num_seqs to a pass", () => {
    const { submit, runUntil, passes } = setup({ timing: { maxSeqs: 2 } });
    ["a", "b", "c"].forEach((id) => submit(id, 640, 3));
    runUntil();
    expect(passes.map(plan).slice(0, 3)).toEqual(["a:640p b:640p", "a:1 b:1", "c:640p"]);
  });

  it("runs decodes first and gives the rest of the budget to a new prompt's chunk", () => {
    const { submit, runUntil, passes } = setup();
    submit("a", 1_000, 400);
    runUntil(600);
    submit("b", 10_000, 3);
    runUntil();
    const mixed = passes.filter((p) => p.entries.some((e) => e.id === "b"));
    expect(mixed.slice(0, 2).map(plan)).toEqual(["a:1 b:8191p", "a:1 b:1809p"]);
  });

  it("turns a run of identical decode passes into one window and emits every token", () => {
    const { submit, runUntil, passes } = setup();
    const r = submit("a", 640, 200);
    runUntil();
    expect(passes.map((p) => p.passes)).toEqual([1, 199]);
    expect(r.generated).toBe(200);
    const pass = passes[1]!.passMs;
    expect(r.finishedAt! - r.firstTokenAt!).toBeCloseTo(199 * pass, 6);
    expect(summarize(r.itlRuns!)).toEqual({ mean: expect.closeTo(pass, 6), p95: expect.closeTo(pass, 6) });
  });

  it("cuts a window short when a request arrives, so it joins at the next pass", () => {
    const { submit, runUntil, passes } = setup();
    const a = submit("a", 640, 2_000);
    runUntil(1_000);
    const b = submit("b", 640, 5);
    runUntil();
    const window = passes[1]!;
    const joined = passes.find((p) => p.entries.some((e) => e.id === "b"))!;
    const ready = b.arrivedAt + setupMs(DEFAULT_ENGINE_TIMING, 640);
    expect(window.passes).toBe(1_999);
    expect(joined.at).toBeGreaterThanOrEqual(ready);
    expect(joined.at - ready).toBeLessThan(window.passMs);
    expect(plan(joined)).toBe("a:1 b:640p");
    expect(a.generated).toBe(2_000);
    expect(a.finishedAt! - a.firstTokenAt!).toBeGreaterThan(1_999 * window.passMs);
  });

  it("keeps a waiting prompt out while its KV does not fit, then admits it when blocks free", () => {
    const { submit, runUntil, worker, passes } = setup({ capacity: 30 });
    const a = submit("a", 1_280, 300);
    runUntil(100);
    const b = submit("b", 640, 5);
    runUntil(400);
    expect(worker.running).toBe(1);
    expect(worker.waiting).toBe(1);
    runUntil();
    expect(b.firstTokenAt!).toBeGreaterThanOrEqual(a.finishedAt!);
    expect(b.preemptions + a.preemptions).toBe(0);
    expect(passes.some((p) => p.entries.length === 2)).toBe(false);
  });

  it("preempts the newest request when KV runs out, and recomputes it later", () => {
    const { submit, runUntil, worker, done } = setup({ capacity: 30 });
    const a = submit("a", 640, 1_000);
    const b = submit("b", 640, 1_000);
    runUntil();
    expect(done.map((r) => r.id)).toEqual(["a", "b"]);
    expect(a.preemptions).toBe(0);
    expect(b.preemptions).toBe(1);
    expect(worker.preemptions).toBe(1);
    expect(b.generated).toBe(1_000);
    const longestGap = Math.max(...b.itlRuns!.filter((_, i) => i % 2 === 0));
    expect(longestGap).toBeGreaterThan(0.5 * (a.finishedAt! - a.firstTokenAt!));
    expect(b.finishedAt!).toBeGreaterThan(a.finishedAt!);
    expect(worker.pool.active).toBe(0);
  });

  it("refuses a prompt that could never fit the worker's KV", () => {
    const { submit, runUntil } = setup({ capacity: 10 });
    const r = submit("a", 1_000, 10);
    runUntil();
    expect(r.outcome).toBe("error");
    expect(r.finishReason).toBe("context_too_long");
  });
});

describe("disaggregated: prefill and decode workers run the same engine with one phase each", () => {
  it("delays the first token by the KV transfer of the prompt over the link", () => {
    const { submit, runUntil, workers, passes } = setup({ roles: ["prefill", "decode"] });
    const r = submit("a", 20_000, 50);
    runUntil();
    const [prefill, decode] = workers as [SimWorker, SimWorker];
    const prefillEnd =
      r.arrivedAt +
      setupMs(DEFAULT_ENGINE_TIMING, 20_000) +
      prefillMs(DEFAULT_ENGINE_TIMING, 8_192) * 2 +
      prefillMs(DEFAULT_ENGINE_TIMING, 3_616);
    const transfer = handoffMs(DEFAULT_ENGINE_TIMING, 20_000);
    expect(transfer).toBeCloseTo((20_000 * 253_952 * 1_000) / 64e9, 6);
    const firstDecode = passes.find((p) => p.entries.every((e) => !e.prefill))!;
    expect(firstDecode.at).toBeCloseTo(prefillEnd + transfer, 6);
    expect(r.firstTokenAt!).toBeCloseTo(prefillEnd + transfer + firstDecode.passMs, 6);
    expect(r.workerId).toBe(decode.id);
    expect(r.cachedTokens).toBe(0);
    expect(r.generated).toBe(50);
    expect(prefill.pool.active + decode.pool.active).toBe(0);
  });
});
