import type { ScrapeKind } from "../../../lib/sources/prometheus-config";

/**
 * A logical metric and the names it has been exposed under, newest first (docs/sources.md). A
 * required metric that none of the names serve is reported as "expected but missing"; an older name in use is
 * reported as renamed.
 */
export type MetricRef = { names: readonly string[]; required?: boolean };

export const VLLM = {
  usage: { names: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"], required: true },
  running: { names: ["vllm:num_requests_running"], required: true },
  waiting: { names: ["vllm:num_requests_waiting"], required: true },
  queries: { names: ["vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"], required: true },
  hits: { names: ["vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"], required: true },
  hitRate: { names: ["vllm:gpu_prefix_cache_hit_rate"] },
  requests: { names: ["vllm:request_success_total"] },
  ttft: { names: ["vllm:time_to_first_token_seconds"], required: true },
  itl: { names: ["vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"], required: true },
  cacheConfig: { names: ["vllm:cache_config_info"] },
  preemptions: { names: ["vllm:num_preemptions_total", "vllm:num_preemptions"] },
} satisfies Record<string, MetricRef>;

export const SGLANG = {
  usage: { names: ["sglang:token_usage"], required: true },
  running: { names: ["sglang:num_running_reqs"], required: true },
  waiting: { names: ["sglang:num_queue_reqs"], required: true },
  hitRate: { names: ["sglang:cache_hit_rate"], required: true },
  prompt: { names: ["sglang:prompt_tokens_total"] },
  cached: { names: ["sglang:cached_tokens_total"] },
  capacity: { names: ["sglang:max_total_num_tokens"] },
  requests: { names: ["sglang:num_requests_total"] },
  ttft: { names: ["sglang:time_to_first_token_seconds"] },
  itl: { names: ["sglang:inter_token_latency_seconds"] },
  /** SGLang calls a preemption a retraction. */
  preemptions: { names: ["sglang:num_retracted_reqs_total", "sglang:num_retracted_reqs"] },
} satisfies Record<string, MetricRef>;

export const DYNAMO_WORKER = {
  usage: {
    names: ["dynamo_component_gpu_cache_usage_percent", "dynamo_component_kvstats_gpu_cache_usage_percent"],
    required: true,
  },
  total: { names: ["dynamo_component_total_blocks", "dynamo_component_kvstats_total_blocks"], required: true },
  active: { names: ["dynamo_component_kvstats_active_blocks"] },
  hitRate: { names: ["dynamo_component_kv_cache_hit_rate", "dynamo_component_kvstats_gpu_prefix_cache_hit_rate"] },
  running: { names: ["dynamo_component_inflight_requests"], required: true },
  requests: { names: ["dynamo_component_requests_total"] },
} satisfies Record<string, MetricRef>;

export const DYNAMO_FRONTEND = {
  requests: { names: ["dynamo_frontend_requests_total", "dynamo_frontend_requests"], required: true },
  ttft: { names: ["dynamo_frontend_time_to_first_token_seconds"], required: true },
  itl: { names: ["dynamo_frontend_inter_token_latency_seconds"], required: true },
  input: { names: ["dynamo_frontend_input_sequence_tokens"], required: true },
  cached: { names: ["dynamo_frontend_cached_tokens"] },
  queued: { names: ["dynamo_frontend_queued_requests"], required: true },
  inflight: { names: ["dynamo_frontend_inflight_requests"], required: true },
  workerBlocks: { names: ["dynamo_frontend_worker_active_decode_blocks"] },
  workerPrefill: { names: ["dynamo_frontend_worker_active_prefill_tokens"] },
  modelBlocks: { names: ["dynamo_frontend_model_total_kv_blocks"] },
  routerHit: { names: ["dynamo_component_router_kv_hit_rate"] },
} satisfies Record<string, MetricRef>;

/** Dynamo's KV block manager endpoint (its own port): tier movements and hit rates, none required (see kvbm.ts). */
export const KVBM = {
  offloadD2h: { names: ["kvbm_offload_blocks_d2h"] },
  onboardH2d: { names: ["kvbm_onboard_blocks_h2d"] },
  hostHitRate: { names: ["kvbm_host_cache_hit_rate"] },
  diskHitRate: { names: ["kvbm_disk_cache_hit_rate"] },
} satisfies Record<string, MetricRef>;

/** The families a kind is expected to serve, by logical name. */
export const EXPECTED: Record<Exclude<ScrapeKind, "auto">, Record<string, MetricRef>> = {
  vllm: VLLM,
  sglang: SGLANG,
  "dynamo-worker": DYNAMO_WORKER,
  "dynamo-frontend": DYNAMO_FRONTEND,
  kvbm: KVBM,
};

/** Which kind a scrape is, from the family names it serves; null when none is recognised. */
export function detectKind(names: Iterable<string>): Exclude<ScrapeKind, "auto"> | null {
  let worker = false;
  let vllm = false;
  let sglang = false;
  let kvbm = false;
  for (const n of names) {
    if (n.startsWith("dynamo_frontend_")) return "dynamo-frontend";
    if (/^dynamo_component_(kvstats_|total_blocks|gpu_cache_usage_percent|inflight_requests)/.test(n)) worker = true;
    else if (n.startsWith("vllm:")) vllm = true;
    else if (n.startsWith("sglang:")) sglang = true;
    else if (n.startsWith("kvbm_")) kvbm = true;
  }
  return worker ? "dynamo-worker" : vllm ? "vllm" : sglang ? "sglang" : kvbm ? "kvbm" : null;
}
