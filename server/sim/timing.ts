// How long a worker's forward pass takes. One model, two sources: built-in curves (the default,
// calibrated to NVIDIA's reported 52k-token figures) or a profile measured on the operator's own
// hardware (profile.ts). Times are milliseconds; token counts are tokens.
//
//   setup(prompt)           tokenizing and hashing the prompt before it can be scheduled (not GPU time)
//   pass = prefill(new) + decode(kv, ctx)
//   prefill(new)            new = prompt tokens computed in the pass (0 → 0 ms)
//   decode(kv, ctx)         kv = KV tokens of the requests decoding in the pass, ctx = kv / their number
//   handoff(tokens)         disaggregated KV transfer: tokens × bytes per token ÷ link bandwidth

export type EngineLimits = {
  /** Token budget of one pass (vLLM max_num_batched_tokens). */
  maxBatchedTokens: number;
  /** Requests in one pass (vLLM max_num_seqs). */
  maxSeqs: number;
};

export type Curve = { readonly x: Float64Array; readonly y: Float64Array };
export type Grid = { readonly kv: Float64Array; readonly ctx: Float64Array; readonly ms: Float64Array };

export type EngineTiming = EngineLimits & {
  /** Where the curves come from: "built-in" or the profile file's name. */
  source: string;
  setupBaseMs: number;
  setupPerPromptTokenMs: number;
  /** Built-in prefill: c0 + c1·n + c2·n² for n > 0 new tokens. */
  prefillPoly: readonly [number, number, number];
  /** Built-in decode: d0 + d1·kv when at least one request decodes. */
  decodeLinear: readonly [number, number];
  /** Measured curves replace the built-in ones when present. */
  prefillCurve: Curve | null;
  decodeGrid: Grid | null;
  kvBytesPerToken: number;
  linkBytesPerSecond: number;
};

/** Bytes of KV per token: K and V for every layer and KV head, at the dtype's width. */
export function kvBytesPerToken(m: { layers: number; kvHeads: number; headDim: number; dtypeBytes: number }): number {
  return 2 * m.layers * m.kvHeads * m.headDim * m.dtypeBytes;
}

/** The modelled model (Qwen3-Coder-480B-A35B): 62 layers, 8 KV heads of 128, bf16 → 253,952 bytes per token. */
export const MODEL_KV_BYTES_PER_TOKEN = kvBytesPerToken({ layers: 62, kvHeads: 8, headDim: 128, dtypeBytes: 2 });

/**
 * Built-in curves. An idle worker takes 15 + 0.00285·52,000 = 163 ms of setup plus one 32-token pass
 * (≈ 5 ms) for a 52k prompt with its prefix cached (≈ 168 ms), and setup plus seven chunks of up to
 * 8,192 tokens (≈ 749 ms) without (≈ 912 ms). Decode: 15 ms per pass plus 25 µs per KV token read.
 */
export const DEFAULT_ENGINE_TIMING: EngineTiming = {
  source: "built-in",
  maxBatchedTokens: 8_192,
  maxSeqs: 256,
  setupBaseMs: 15,
  setupPerPromptTokenMs: 0.00285,
  prefillPoly: [5, 0.012147, 2e-7],
  decodeLinear: [15, 0.000025],
  prefillCurve: null,
  decodeGrid: null,
  kvBytesPerToken: MODEL_KV_BYTES_PER_TOKEN,
  linkBytesPerSecond: 64e9,
};

/** Time from arrival until the prompt can be scheduled. */
export function setupMs(t: EngineTiming, promptTokens: number): number {
  return t.setupBaseMs + t.setupPerPromptTokenMs * promptTokens;
}

/** Prefill part of a pass computing `n` new prompt tokens. */
export function prefillMs(t: EngineTiming, n: number): number {
  if (n <= 0) return 0;
  if (t.prefillCurve) return interpolate(t.prefillCurve.x, t.prefillCurve.y, n);
  const [c0, c1, c2] = t.prefillPoly;
  return c0 + c1 * n + c2 * n * n;
}

/** Decode part of a pass in which `seqs` requests holding `kv` KV tokens in all each emit a token. */
export function decodeMs(t: EngineTiming, kv: number, seqs: number): number {
  if (seqs <= 0) return 0;
  const g = t.decodeGrid;
  if (g) return bilinear(g, kv, kv / seqs);
  return t.decodeLinear[0] + t.decodeLinear[1] * kv;
}

/** Disaggregated KV transfer of a prompt from a prefill to a decode worker. */
export function handoffMs(t: EngineTiming, tokens: number): number {
  return ((tokens * t.kvBytesPerToken) / t.linkBytesPerSecond) * 1000;
}

/** Piecewise-linear through (x, y), extended linearly past the last point and clamped at 0 below the first. */
export function interpolate(x: Float64Array, y: Float64Array, v: number): number {
  const n = x.length;
  if (n === 1) return y[0]!;
  let i = 1;
  while (i < n - 1 && x[i]! < v) i++;
  if (v <= x[0]!) return y[0]! * Math.max(0, v / Math.max(x[0]!, 1e-9));
  const x0 = x[i - 1]!,
    x1 = x[i]!;
  return y[i - 1]! + ((y[i]! - y[i - 1]!) * (v - x0)) / (x1 - x0);
}

function bilinear(g: Grid, kv: number, ctx: number): number {
  const nc = g.ctx.length;
  const row = (i: number) =>
    nc === 1 ? g.ms[i]! : interpolate(g.ctx, g.ms.subarray(i * nc, (i + 1) * nc), Math.min(ctx, g.ctx[nc - 1]!));
  const nk = g.kv.length;
  if (nk === 1) return row(0);
  const ys = new Float64Array(nk);
  for (let i = 0; i < nk; i++) ys[i] = row(i);
  return interpolate(g.kv, ys, kv);
}

/** Prompt tokens per second of back-to-back full-budget prefill passes (the planner's unit of prefill work). */
export function prefillTokensPerSecond(t: EngineTiming): number {
  return (t.maxBatchedTokens / prefillMs(t, t.maxBatchedTokens)) * 1000;
}
