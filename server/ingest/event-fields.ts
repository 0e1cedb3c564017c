import { z } from "zod";
import { badHashIndex, hashProblem, MAX_CHAIN, MAX_HASHES } from "./event-bounds";

// The hash and counter fields of switchyard.telemetry.v1's schema (events.ts): block hashes as u64 decimal strings,
// lists of them within a bound, and cumulative counters normalized to decimal strings. The fast path checks the same
// (event-fast-checks.ts isHashes, counterText).

const I64_MAX = 9_223_372_036_854_775_807n;

/** A u64 block hash as a decimal string; JSON numbers lose precision, so they are refused. */
export const blockHash = z.custom<string>((v) => hashProblem(v) === null, {
  error: (i) => hashProblem(i.input) ?? "invalid hash",
});

/** The first problem in a list of hashes (index and message), or null. */
function hashListProblem(v: unknown[]): { index: number; message: string } | null {
  const i = badHashIndex(v);
  return i < 0 ? null : { index: i, message: hashProblem(v[i]) ?? "invalid hash" };
}

/** Between min and max block hashes (the error names the first bad index); over the bound is refused, never truncated. */
export const hashList = (min: number, max = MAX_HASHES) =>
  z.custom<string[]>().check((ctx) => {
    const v = ctx.value as unknown;
    if (!Array.isArray(v)) {
      ctx.issues.push({ code: "custom", message: "must be an array of decimal strings", input: v });
      return;
    }
    if (v.length < min || v.length > max) {
      ctx.issues.push({ code: "custom", message: `must hold ${min} to ${max} hashes (got ${v.length})`, input: v });
      return;
    }
    const problem = hashListProblem(v);
    if (problem)
      ctx.issues.push({ code: "custom", message: problem.message, input: v[problem.index], path: [problem.index] });
  });

/** Up to MAX_HASHES block hashes (a KV event's list). */
export const hashes = hashList(0);
/** Up to MAX_CHAIN block hashes (a request's chain). */
export const chainHashes = hashList(0, MAX_CHAIN);

/** A cumulative counter: a non-negative integer or its decimal string, normalized to a string. */
export const counter = z
  .union([
    z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    z.string().regex(/^(0|[1-9]\d{0,18})$/, "must be a non-negative integer"),
  ])
  .transform((v) => String(v))
  .refine((s) => BigInt(s) <= I64_MAX, "exceeds 2^63-1");
