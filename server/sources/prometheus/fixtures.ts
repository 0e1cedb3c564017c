// Exposition texts written from the documented metric families of each target kind (docs/sources.md).

/** vLLM v1 (newer names): one engine, cache config info with the GPU block count. */
export const VLLM_NEW = (
  o: { usage?: number; queries?: number; hits?: number; running?: number; ttft?: number[] } = {},
) => `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="qwen3"} ${o.running ?? 4}
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="qwen3"} 2
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="qwen3"} ${o.usage ?? 0.25}
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="qwen3"} ${o.queries ?? 1000}
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="qwen3"} ${o.hits ?? 600}
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",num_gpu_blocks="8192",engine="0"} 1.0
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="qwen3"} 10
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
${histogram("vllm:time_to_first_token_seconds", [0.1, 0.5, 1], o.ttft ?? [0, 0, 0, 0], 'engine="0",model_name="qwen3"')}
# TYPE vllm:inter_token_latency_seconds histogram
${histogram("vllm:inter_token_latency_seconds", [0.01, 0.05], [0, 0, 0], 'engine="0",model_name="qwen3"')}
`;

/** Older vLLM (v0 names): gpu_cache_usage_perc, gpu_prefix_cache_* and time_per_output_token. */
export const VLLM_OLD = `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="llama"} 3
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="llama"} 1
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="llama"} 0.5
# TYPE vllm:gpu_prefix_cache_queries_total counter
vllm:gpu_prefix_cache_queries_total{model_name="llama"} 200
# TYPE vllm:gpu_prefix_cache_hits_total counter
vllm:gpu_prefix_cache_hits_total{model_name="llama"} 50
# TYPE vllm:time_to_first_token_seconds histogram
${histogram("vllm:time_to_first_token_seconds", [0.1, 1], [1, 2, 2], 'model_name="llama"')}
# TYPE vllm:time_per_output_token_seconds histogram
${histogram("vllm:time_per_output_token_seconds", [0.01, 0.1], [1, 1, 1], 'model_name="llama"')}
`;

/** SGLang: gauges only for usage and hit rate, prompt token counter, capacity in tokens. */
export const SGLANG = (o: { prompt?: number; hitRate?: number } = {}) => `# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="qwen"} 0.4
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="qwen"} 7
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="qwen"} 5
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="qwen"} ${o.hitRate ?? 0.5}
# TYPE sglang:max_total_num_tokens gauge
sglang:max_total_num_tokens{model_name="qwen"} 100000
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="qwen"} ${o.prompt ?? 1000}
`;

/** Older Dynamo worker: kvstats_* names. */
export const DYNAMO_WORKER_OLD = `# TYPE dynamo_component_kvstats_active_blocks gauge
dynamo_component_kvstats_active_blocks{dynamo_component="backend",dynamo_endpoint="generate",dynamo_namespace="dynamo"} 24
# TYPE dynamo_component_kvstats_total_blocks gauge
dynamo_component_kvstats_total_blocks{dynamo_component="backend",dynamo_endpoint="generate",dynamo_namespace="dynamo"} 128
# TYPE dynamo_component_kvstats_gpu_cache_usage_percent gauge
dynamo_component_kvstats_gpu_cache_usage_percent{dynamo_component="backend",dynamo_endpoint="generate",dynamo_namespace="dynamo"} 0.1875
# TYPE dynamo_component_kvstats_gpu_prefix_cache_hit_rate gauge
dynamo_component_kvstats_gpu_prefix_cache_hit_rate{dynamo_component="backend",dynamo_endpoint="generate",dynamo_namespace="dynamo"} 0.4
# TYPE dynamo_component_inflight_requests gauge
dynamo_component_inflight_requests{dynamo_component="backend",dynamo_endpoint="generate",dynamo_namespace="dynamo"} 3
dynamo_component_inflight_requests{dynamo_component="backend",dynamo_endpoint="clear_kv_blocks",dynamo_namespace="dynamo"} 9
# TYPE dynamo_component_requests_total counter
dynamo_component_requests_total{dynamo_component="backend",dynamo_endpoint="generate",dynamo_namespace="dynamo"} 64
`;

/** Newer Dynamo worker: total_blocks and gpu_cache_usage_percent, with vLLM's metrics passed through. */
export const DYNAMO_WORKER_NEW = `# TYPE dynamo_component_total_blocks gauge
dynamo_component_total_blocks{dynamo_component="backend",dynamo_endpoint="generate"} 1000
# TYPE dynamo_component_gpu_cache_usage_percent gauge
dynamo_component_gpu_cache_usage_percent{dynamo_component="backend",dynamo_endpoint="generate"} 0.3
# TYPE dynamo_component_inflight_requests gauge
dynamo_component_inflight_requests{dynamo_component="backend",dynamo_endpoint="generate"} 5
${VLLM_NEW({ running: 5 })}`;

/** Dynamo frontend with per-worker router bookkeeping. */
export const DYNAMO_FRONTEND = (
  o: { requests?: number; input?: number; cached?: number; ttft?: number[] } = {},
) => `# TYPE dynamo_frontend_requests_total counter
dynamo_frontend_requests_total{model="qwen",endpoint="chat_completions",request_type="stream",status="success"} ${o.requests ?? 100}
# TYPE dynamo_frontend_queued_requests gauge
dynamo_frontend_queued_requests{model="qwen"} 2
# TYPE dynamo_frontend_inflight_requests gauge
dynamo_frontend_inflight_requests{model="qwen"} 6
# TYPE dynamo_frontend_time_to_first_token_seconds histogram
${histogram("dynamo_frontend_time_to_first_token_seconds", [0.1, 0.2, 0.4], o.ttft ?? [0, 0, 0, 0], 'model="qwen"')}
# TYPE dynamo_frontend_inter_token_latency_seconds histogram
${histogram("dynamo_frontend_inter_token_latency_seconds", [0.01, 0.02], [0, 0, 0], 'model="qwen"')}
# TYPE dynamo_frontend_input_sequence_tokens histogram
dynamo_frontend_input_sequence_tokens_bucket{model="qwen",le="+Inf"} 10
dynamo_frontend_input_sequence_tokens_sum{model="qwen"} ${o.input ?? 10000}
dynamo_frontend_input_sequence_tokens_count{model="qwen"} 10
# TYPE dynamo_frontend_cached_tokens histogram
dynamo_frontend_cached_tokens_bucket{model="qwen",le="+Inf"} 10
dynamo_frontend_cached_tokens_sum{model="qwen"} ${o.cached ?? 4000}
dynamo_frontend_cached_tokens_count{model="qwen"} 10
# TYPE dynamo_frontend_worker_active_decode_blocks gauge
dynamo_frontend_worker_active_decode_blocks{worker_id="7587888160958627596",dp_rank="0",worker_type="decode"} 40
# TYPE dynamo_frontend_model_total_kv_blocks gauge
dynamo_frontend_model_total_kv_blocks{model="qwen"} 2048
`;

/** Cumulative bucket lines (counts per bound, last is +Inf) plus _sum and _count. */
export function histogram(name: string, bounds: number[], counts: number[], labels: string): string {
  const lines = bounds.map((le, i) => `${name}_bucket{${labels},le="${le}"} ${counts[i] ?? 0}`);
  const total = counts.at(-1) ?? 0;
  lines.push(
    `${name}_bucket{${labels},le="+Inf"} ${total}`,
    `${name}_sum{${labels}} ${total * 0.1}`,
    `${name}_count{${labels}} ${total}`,
  );
  return lines.join("\n");
}

/** Dynamo KVBM's own /metrics (DYN_KVBM_METRICS=true, port 6880): block movements between tiers and per-tier hit rates. */
export const KVBM = (
  o: { d2h?: number; h2d?: number; onboardH2d?: number; onboardD2d?: number; host?: number; disk?: number } = {},
) => `# HELP kvbm_matched_tokens The number of matched tokens
# TYPE kvbm_matched_tokens counter
kvbm_matched_tokens 5120
# HELP kvbm_offload_blocks_d2h The number of offload blocks from device to host
# TYPE kvbm_offload_blocks_d2h counter
kvbm_offload_blocks_d2h ${o.d2h ?? 100}
# HELP kvbm_offload_blocks_h2d The number of offload blocks from host to disk
# TYPE kvbm_offload_blocks_h2d counter
kvbm_offload_blocks_h2d ${o.h2d ?? 10}
# HELP kvbm_offload_blocks_d2d The number of offload blocks from device to disk (bypassing host memory)
# TYPE kvbm_offload_blocks_d2d counter
kvbm_offload_blocks_d2d 0
# HELP kvbm_onboard_blocks_h2d The number of onboard blocks from host to device
# TYPE kvbm_onboard_blocks_h2d counter
kvbm_onboard_blocks_h2d ${o.onboardH2d ?? 40}
# HELP kvbm_onboard_blocks_d2d The number of onboard blocks from disk to device
# TYPE kvbm_onboard_blocks_d2d counter
kvbm_onboard_blocks_d2d ${o.onboardD2d ?? 4}
# HELP kvbm_host_cache_hit_rate Host cache hit rate (0.0-1.0) from sliding window
# TYPE kvbm_host_cache_hit_rate gauge
kvbm_host_cache_hit_rate ${o.host ?? 0.42}
# HELP kvbm_disk_cache_hit_rate Disk cache hit rate (0.0-1.0) from sliding window
# TYPE kvbm_disk_cache_hit_rate gauge
kvbm_disk_cache_hit_rate ${o.disk ?? 0.05}
`;
