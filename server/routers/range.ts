import { z } from "zod";
import { MAX_SPAN_MS, PRESETS, resolveRange, type Preset, type ResolvedRange } from "../../lib/time-range";
import { clusterName } from "../../lib/cluster-name";
import { MAX_MODEL, type Scope } from "../../lib/scope";

/** A range as procedures take it: a preset resolved at query time (stable query keys), or fixed bounds. */
export const rangeInput = z.union([
  z.object({ preset: z.enum(Object.keys(PRESETS) as [Preset, ...Preset[]]) }),
  z
    .object({ from: z.number().int().min(0), to: z.number().int().min(0) })
    .refine((r) => r.to > r.from, { message: "to must be after from", path: ["to"] })
    .refine((r) => r.to - r.from <= MAX_SPAN_MS, { message: "range is longer than 31 days", path: ["from"] }),
]);

export type RangeInput = z.infer<typeof rangeInput>;

export function resolveInput(input: RangeInput, now: number): ResolvedRange {
  return resolveRange(input, now);
}

/** A page's scope as procedures take it (lib/scope.ts): absent fields mean every cluster, every model. */
export const scopeFields = z.object({
  cluster: clusterName.optional(),
  model: z.string().min(1).max(MAX_MODEL).optional(),
});

/** A range with a scope beside it: `{ preset, cluster?, model? }`. */
export const scopedRangeInput = rangeInput.and(scopeFields);

export function scopeOfInput(input: z.infer<typeof scopeFields>): Scope {
  return {
    ...(input.cluster !== undefined ? { cluster: input.cluster } : {}),
    ...(input.model !== undefined ? { model: input.model } : {}),
  };
}
