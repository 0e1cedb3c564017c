import { DEFAULT_ENGINE_TIMING, type EngineTiming } from "./timing";

// An engine profile: pass-time curves measured on the operator's own hardware, loaded with
// `--engine-profile FILE`. JSON:
//   { "prefill": { "new_tokens": [512, 2048, 8192], "ms": [9, 30, 120] },
//     "decode":  { "active_kv_tokens": [0, 100000, 600000], "context_tokens": [1000, 50000],
//                  "ms": [[12, 13], [15, 18], [28, 35]] },            // ms[kv][context]
//     "max_num_batched_tokens"?: 8192, "max_num_seqs"?: 256,
//     "kv_bytes_per_token"?: 253952, "link_gbytes_per_second"?: 64 }
// Times are interpolated piecewise-linearly between points. Points must be increasing and times
// non-negative and non-decreasing (more work never takes less time); anything else is refused with
// the file, line and field named. Parsing is pure: the caller reads the file.

export type ProfileResult = { ok: true; timing: EngineTiming } | { ok: false; error: string };

type Problem = { field: string; message: string };

/** Parse a profile's text into engine timing over the built-in defaults, or a message naming file, line and field. */
export function parseEngineProfile(
  text: string,
  file: string,
  base: EngineTiming = DEFAULT_ENGINE_TIMING,
): ProfileResult {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `${file}: not valid JSON (${err instanceof Error ? err.message : "parse error"})` };
  }
  const problems: Problem[] = [];
  const timing = readProfile(doc, file, base, problems);
  if (!timing) {
    const p = problems[0]!;
    return { ok: false, error: `${file}:${lineOf(text, p.field)}: ${p.field}: ${p.message}` };
  }
  return { ok: true, timing };
}

function readProfile(doc: unknown, file: string, base: EngineTiming, problems: Problem[]): EngineTiming | null {
  if (!isObject(doc)) return fail(problems, "(document)", "must be a JSON object");
  const known = new Set([
    "prefill",
    "decode",
    "max_num_batched_tokens",
    "max_num_seqs",
    "kv_bytes_per_token",
    "link_gbytes_per_second",
  ]);
  for (const key of Object.keys(doc)) if (!known.has(key)) return fail(problems, key, "is not a profile field");
  const timing: EngineTiming = { ...base, source: file };
  if (doc.prefill !== undefined) {
    const p = doc.prefill;
    if (!isObject(p)) return fail(problems, "prefill", "must be an object { new_tokens, ms }");
    const x = increasing(p.new_tokens, "prefill.new_tokens", problems);
    const y = x && times(p.ms, x.length, "prefill.ms", problems);
    if (!x || !y) return null;
    timing.prefillCurve = { x, y };
  }
  if (doc.decode !== undefined) {
    const d = doc.decode;
    if (!isObject(d)) return fail(problems, "decode", "must be an object { active_kv_tokens, context_tokens, ms }");
    const kv = increasing(d.active_kv_tokens, "decode.active_kv_tokens", problems);
    const ctx = kv && increasing(d.context_tokens, "decode.context_tokens", problems);
    if (!kv || !ctx) return null;
    if (!Array.isArray(d.ms) || d.ms.length !== kv.length)
      return fail(problems, "decode.ms", `must be ${kv.length} rows, one per active_kv_tokens point`);
    const ms = new Float64Array(kv.length * ctx.length);
    for (let i = 0; i < kv.length; i++) {
      const row = times(d.ms[i], ctx.length, `decode.ms[${i}]`, problems);
      if (!row) return null;
      ms.set(row, i * ctx.length);
      if (i > 0)
        for (let j = 0; j < ctx.length; j++)
          if (ms[i * ctx.length + j]! < ms[(i - 1) * ctx.length + j]!)
            return fail(problems, `decode.ms[${i}][${j}]`, "is below the row before it (more KV never decodes faster)");
    }
    timing.decodeGrid = { kv, ctx, ms };
  }
  const budget = positiveInt(doc.max_num_batched_tokens, "max_num_batched_tokens", problems);
  const seqs = positiveInt(doc.max_num_seqs, "max_num_seqs", problems);
  const bytes = positiveNumber(doc.kv_bytes_per_token, "kv_bytes_per_token", problems);
  const link = positiveNumber(doc.link_gbytes_per_second, "link_gbytes_per_second", problems);
  if (problems.length) return null;
  if (budget !== undefined) timing.maxBatchedTokens = budget;
  if (seqs !== undefined) timing.maxSeqs = seqs;
  if (bytes !== undefined) timing.kvBytesPerToken = bytes;
  if (link !== undefined) timing.linkBytesPerSecond = link * 1e9;
  return timing;
}

/** Why a token budget cannot work with a block size, or null. */
export function budgetProblem(timing: EngineTiming, blockSize: number): string | null {
  return timing.maxBatchedTokens < blockSize
    ? `max_num_batched_tokens ${timing.maxBatchedTokens} is below the block size ${blockSize}`
    : null;
}

function increasing(v: unknown, field: string, problems: Problem[]): Float64Array | null {
  if (!Array.isArray(v) || v.length === 0 || v.length > 10_000)
    return fail(problems, field, "must be a non-empty array of at most 10000 numbers");
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const n = v[i];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0)
      return fail(problems, `${field}[${i}]`, "must be a non-negative number");
    if (i > 0 && n <= out[i - 1]!)
      return fail(problems, `${field}[${i}]`, "must be greater than the point before it (points must increase)");
    out[i] = n;
  }
  return out;
}

function times(v: unknown, n: number, field: string, problems: Problem[]): Float64Array | null {
  if (!Array.isArray(v) || v.length !== n)
    return fail(problems, field, `must be an array of ${n} times in ms, one per point`);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = v[i];
    if (typeof t !== "number" || !Number.isFinite(t) || t < 0)
      return fail(problems, `${field}[${i}]`, "must be a non-negative number of ms");
    if (i > 0 && t < out[i - 1]!)
      return fail(problems, `${field}[${i}]`, "is below the time before it (times must not decrease)");
    out[i] = t;
  }
  return out;
}

function positiveInt(v: unknown, field: string, problems: Problem[]): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 10_000_000)
    fail(problems, field, "must be a positive integer");
  return v as number;
}

function positiveNumber(v: unknown, field: string, problems: Problem[]): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) fail(problems, field, "must be a positive number");
  return v as number;
}

function fail(problems: Problem[], field: string, message: string): null {
  problems.push({ field, message });
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** 1-based line of the field's last named key in the text (1 when not found). */
function lineOf(text: string, field: string): number {
  const keys = field.match(/[a-z_]+/g) ?? [];
  let at = 0;
  for (const key of keys) {
    const i = text.indexOf(`"${key}"`, at);
    if (i >= 0) at = i;
  }
  return text.slice(0, at).split("\n").length;
}
