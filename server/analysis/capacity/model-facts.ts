import { AppError } from "../../errors";

// KV bytes per token of the models Switchyard knows, for turning block counts into GB. Each entry is the model's
// attention geometry as its published configuration gives it (layers, KV heads, head size), with a bf16 KV cache
// unless an engine is told otherwise (an fp8 KV cache halves the figure: pass bytes_per_token then). Models with
// multi-head latent attention keep one compressed latent per layer instead of K and V.

export type ModelFacts = {
  /** Lower-case name fragment a worker's model must contain (after any "org/" prefix). */
  match: string;
  layers: number;
  /** Per layer: K and V heads × head size (GQA/MHA), or the latent plus its rotary part (MLA). */
  kvHeads: number;
  headDim: number;
  /** 2 for K and V; 1 for one latent (MLA). */
  tensors: 1 | 2;
  dtypeBytes: number;
  note?: string;
};

/** Longest fragments first, so "qwen3-coder-30b" is not taken for a larger model of the same family. */
export const MODEL_FACTS: readonly ModelFacts[] = [
  { match: "qwen3-coder-480b-a35b", layers: 62, kvHeads: 8, headDim: 128, tensors: 2, dtypeBytes: 2 },
  { match: "qwen3-coder-30b-a3b", layers: 48, kvHeads: 4, headDim: 128, tensors: 2, dtypeBytes: 2 },
  { match: "qwen2.5-coder-32b", layers: 64, kvHeads: 8, headDim: 128, tensors: 2, dtypeBytes: 2 },
  {
    match: "gpt-oss-120b",
    layers: 36,
    kvHeads: 8,
    headDim: 64,
    tensors: 2,
    dtypeBytes: 2,
    note: "half its layers attend to a 128-token window, so long prompts need less; the figure counts every layer",
  },
  {
    match: "gpt-oss-20b",
    layers: 24,
    kvHeads: 8,
    headDim: 64,
    tensors: 2,
    dtypeBytes: 2,
    note: "half its layers attend to a 128-token window, so long prompts need less; the figure counts every layer",
  },
  { match: "llama-3.3-70b", layers: 80, kvHeads: 8, headDim: 128, tensors: 2, dtypeBytes: 2 },
  { match: "llama-3.1-70b", layers: 80, kvHeads: 8, headDim: 128, tensors: 2, dtypeBytes: 2 },
  { match: "llama-3.1-8b", layers: 32, kvHeads: 8, headDim: 128, tensors: 2, dtypeBytes: 2 },
  {
    match: "deepseek-v3",
    layers: 61,
    kvHeads: 1,
    headDim: 576,
    tensors: 1,
    dtypeBytes: 2,
    note: "MLA: one 512 + 64 latent per layer",
  },
  {
    match: "deepseek-r1",
    layers: 61,
    kvHeads: 1,
    headDim: 576,
    tensors: 1,
    dtypeBytes: 2,
    note: "MLA: one 512 + 64 latent per layer",
  },
];

/** The model the built-in simulator models; its figure is used when a window's model is not known. */
export const SIMULATED_MODEL = "qwen3-coder-480b-a35b";

export const bytesOf = (f: ModelFacts): number => f.tensors * f.layers * f.kvHeads * f.headDim * f.dtypeBytes;

/** The facts of a model by name ("Qwen/Qwen3-Coder-480B-A35B-Instruct" finds qwen3-coder-480b-a35b), or null. */
export function factsOf(model: string): ModelFacts | null {
  const name = model.toLowerCase();
  const bare = name.slice(name.lastIndexOf("/") + 1);
  return MODEL_FACTS.find((f) => bare.includes(f.match)) ?? null;
}

/** The largest bytes_per_token a request may give (a dense 1,000-layer model would be ~4 MB). */
export const MAX_BYTES_PER_TOKEN = 16 * 1024 * 1024;

export type KvBytes = { bytesPerToken: number; model: string | null; source: string };

/**
 * KV bytes per token for a window whose workers serve `models` (one entry per worker, null: not reported): `given`
 * when the caller passed it, else the facts of the model most workers serve, else the simulated model's with a note
 * saying so. `source` says where the figure came from, for the page and the API.
 */
export function kvBytesPerToken(models: readonly (string | null)[], given: number | null): KvBytes {
  if (given !== null) {
    if (!Number.isInteger(given) || given < 1 || given > MAX_BYTES_PER_TOKEN)
      throw new AppError("BAD_REQUEST", `bytes_per_token must be a whole number from 1 to ${MAX_BYTES_PER_TOKEN}`);
    return {
      bytesPerToken: given,
      model: null,
      source: `${given.toLocaleString("en-US")} bytes per token, as given in the request`,
    };
  }
  const counts = new Map<string, number>();
  for (const m of models) if (m) counts.set(m, (counts.get(m) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const model = ranked[0]?.[0] ?? null;
  const mixed =
    ranked.length > 1
      ? `; the workers serve ${ranked.length} models (${ranked.map((r) => r[0]).join(", ")}), GB are ${model}'s`
      : "";
  const facts = model ? factsOf(model) : null;
  if (facts) {
    const geometry =
      facts.tensors === 2
        ? `${facts.layers} layers × ${facts.kvHeads} KV heads × ${facts.headDim} × 2 (K and V) × ${facts.dtypeBytes} bytes`
        : `${facts.layers} layers × ${facts.headDim} × ${facts.dtypeBytes} bytes`;
    return {
      bytesPerToken: bytesOf(facts),
      model,
      source: `${model}: ${geometry} = ${bytesOf(facts).toLocaleString("en-US")} bytes per token (published configuration, 16-bit KV cache${facts.note ? `; ${facts.note}` : ""})${mixed}`,
    };
  }
  const sim = factsOf(SIMULATED_MODEL)!;
  return {
    bytesPerToken: bytesOf(sim),
    model,
    source: `${model ? `model ${model} is not in Switchyard's model table` : "the workers reported no model"}: GB assume ${SIMULATED_MODEL} (${bytesOf(sim).toLocaleString("en-US")} bytes per token); pass bytes_per_token= for yours${mixed}`,
  };
}
