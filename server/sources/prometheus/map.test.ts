import { describe, expect, it } from "vitest";
import { prometheusSourceConfig, type PrometheusSourceConfigInput } from "../../../lib/sources/prometheus-config";
import { DYNAMO_FRONTEND, DYNAMO_WORKER_NEW, DYNAMO_WORKER_OLD, SGLANG, VLLM_NEW, VLLM_OLD } from "./fixtures";
import { emptyState, mapScrape, NOMINAL_TOTAL_BLOCKS, type ScrapeState } from "./map";
import { detectKind } from "./metric-names";
import { parseExposition } from "./parse";

const T0 = 1_764_400_000_000;
const cfg = (c: Partial<PrometheusSourceConfigInput> = {}) =>
  prometheusSourceConfig.parse({ url: "http://gpu-3:8000/metrics", ...c });
const scrape = (
  text: string,
  c: Partial<PrometheusSourceConfigInput> = {},
  at = T0,
  state: ScrapeState = emptyState(),
) => mapScrape(parseExposition(text), cfg(c), "src", at, state);

describe("detectKind", () => {
  it.each([
    [VLLM_NEW(), "vllm"],
    [VLLM_OLD, "vllm"],
    [SGLANG(), "sglang"],
    [DYNAMO_WORKER_OLD, "dynamo-worker"],
    [DYNAMO_WORKER_NEW, "dynamo-worker"],
    [DYNAMO_FRONTEND(), "dynamo-frontend"],
    ["process_cpu_seconds_total 3\n", null],
  ])("%#", (text, kind) => expect(detectKind(parseExposition(text).families.keys())).toBe(kind));
});

describe("mapScrape", () => {
  it("vLLM (newer names): one worker.stats with blocks from cache_config_info and the prefix counters as decimal strings", () => {
    const r = scrape(VLLM_NEW(), { kind: "vllm" });
    expect(r.kind).toBe("vllm");
    expect(r.events).toEqual([
      {
        id: `src:gpu-3:8000:${T0}`,
        kind: "worker.stats",
        ts: T0,
        source: "src",
        worker_id: "gpu-3:8000",
        kv_active_blocks: 2048,
        kv_total_blocks: 8192,
        requests_running: 4,
        requests_waiting: 2,
        prefix_query_tokens: "1000",
        prefix_hit_tokens: "600",
      },
    ]);
    expect(r.missing).toEqual([]);
    expect(r.renamed).toEqual([]);
  });

  it("vLLM (older names): still mapped, and the older names are reported as renamed", () => {
    const r = scrape(VLLM_OLD, { kind: "auto", worker_id: "w1" });
    expect(r.events[0]).toMatchObject({
      worker_id: "w1",
      kv_active_blocks: NOMINAL_TOTAL_BLOCKS / 2,
      kv_total_blocks: NOMINAL_TOTAL_BLOCKS,
      prefix_query_tokens: "200",
      prefix_hit_tokens: "50",
    });
    expect(r.renamed).toEqual(
      expect.arrayContaining([
        "vllm:gpu_cache_usage_perc (older name of vllm:kv_cache_usage_perc)",
        "vllm:gpu_prefix_cache_queries_total (older name of vllm:prefix_cache_queries_total)",
        "vllm:time_per_output_token_seconds (older name of vllm:inter_token_latency_seconds)",
      ]),
    );
    expect(r.notes.some((n) => n.includes("nominal blocks"))).toBe(true);
  });

  it("a metric that disappeared is reported missing, not emitted as zero", () => {
    const text = VLLM_NEW().replace(/^vllm:num_requests_running.*$/m, "");
    const r = scrape(text, { kind: "vllm" });
    expect(r.missing).toEqual(["vllm:num_requests_running"]);
    expect(r.events).toEqual([]);
    expect(r.notes.join()).toContain("no worker.stats");
  });

  it("expects the kind's families when the kind is forced: a vLLM target scraped as SGLang reports SGLang's as missing", () => {
    const r = scrape(VLLM_NEW(), { kind: "sglang" });
    expect(r.missing).toEqual([
      "sglang:token_usage",
      "sglang:num_running_reqs",
      "sglang:num_queue_reqs",
      "sglang:cache_hit_rate",
    ]);
    expect(r.events).toEqual([]);
  });

  it("counters become rates between scrapes, reset aware; histograms become interval quantiles", () => {
    const first = scrape(DYNAMO_FRONTEND({ requests: 100, input: 10_000, cached: 4_000, ttft: [0, 0, 0, 0] }));
    expect(first.aggregates.requests_per_s).toBeNull();
    const second = scrape(
      DYNAMO_FRONTEND({ requests: 130, input: 20_000, cached: 10_000, ttft: [0, 50, 100, 100] }),
      {},
      T0 + 15_000,
      first.state,
    );
    expect(second.aggregates.requests_per_s).toBeCloseTo(2);
    expect(second.aggregates.prefix_hit_rate).toBeCloseTo(0.6);
    expect(second.aggregates.ttft_p50_s).toBeCloseTo(0.2);
    expect(second.aggregates.ttft_p95_s).toBeCloseTo(0.38);
    expect(second.aggregates).toMatchObject({ queued: 2, inflight: 6 });
    const restarted = scrape(DYNAMO_FRONTEND({ requests: 15, input: 500, cached: 100 }), {}, T0 + 30_000, second.state);
    expect(restarted.aggregates.requests_per_s).toBeCloseTo(1);
    expect(restarted.aggregates.prefix_hit_rate).toBeCloseTo(0.2);
    expect(restarted.events).toEqual([]);
  });

  it("vLLM prefix hit rate over the interval comes from the counters' increases", () => {
    const a = scrape(VLLM_NEW({ queries: 1000, hits: 600 }), { kind: "vllm" });
    const b = scrape(VLLM_NEW({ queries: 3000, hits: 1000 }), { kind: "vllm" }, T0 + 10_000, a.state);
    expect(b.aggregates.prefix_hit_rate).toBeCloseTo(0.2);
  });

  it.each([
    [
      "vLLM num_preemptions_total",
      VLLM_NEW() +
        '# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{engine="0",model_name="qwen3"} 7\n',
      "7",
    ],
    [
      "SGLang retracted requests",
      SGLANG() + "# TYPE sglang:num_retracted_reqs_total counter\nsglang:num_retracted_reqs_total 3\n",
      "3",
    ],
    ["vLLM without the counter", VLLM_NEW(), undefined],
  ])("%s: worker.stats preemptions", (_name, text, want) => {
    expect(scrape(text).events[0]!.preemptions).toBe(want);
  });

  it("SGLang: prefix counters synthesized from the prompt-token counter and the hit-rate gauge", () => {
    const a = scrape(SGLANG({ prompt: 1000, hitRate: 0.5 }), { worker_id: "sg" });
    expect(a.events[0]).toMatchObject({
      worker_id: "sg",
      kv_total_blocks: 100_000,
      kv_active_blocks: 40_000,
      requests_running: 7,
      requests_waiting: 5,
      prefix_query_tokens: "0",
      prefix_hit_tokens: "0",
    });
    const b = scrape(SGLANG({ prompt: 3000, hitRate: 0.25 }), { worker_id: "sg" }, T0 + 5_000, a.state);
    expect(b.events[0]).toMatchObject({ prefix_query_tokens: "2000", prefix_hit_tokens: "500" });
  });

  it("Dynamo worker (older kvstats names): active/total blocks and the generate endpoint's inflight only", () => {
    const r = scrape(DYNAMO_WORKER_OLD, { worker_id: "decode-1" });
    expect(r.kind).toBe("dynamo-worker");
    expect(r.events[0]).toMatchObject({
      worker_id: "decode-1",
      kv_active_blocks: 24,
      kv_total_blocks: 128,
      requests_running: 3,
    });
    expect(r.renamed).toEqual(
      expect.arrayContaining([
        "dynamo_component_kvstats_gpu_cache_usage_percent (older name of dynamo_component_gpu_cache_usage_percent)",
        "dynamo_component_kvstats_total_blocks (older name of dynamo_component_total_blocks)",
      ]),
    );
  });

  it("Dynamo worker (newer names) with vLLM passed through: usage × total, waiting and prefix counters from vLLM", () => {
    const r = scrape(DYNAMO_WORKER_NEW, { worker_id: "decode-2" });
    expect(r.renamed).toEqual([]);
    expect(r.events[0]).toMatchObject({
      kv_active_blocks: 300,
      kv_total_blocks: 1000,
      requests_running: 5,
      requests_waiting: 2,
      prefix_query_tokens: "1000",
    });
  });

  it("NaN and +Inf gauges are ignored with a note, not turned into numbers", () => {
    const text = VLLM_NEW()
      .replace(/(vllm:kv_cache_usage_perc\{[^}]*\}) 0.25/, "$1 NaN")
      .replace(/(vllm:num_requests_waiting\{[^}]*\}) 2/, "$1 +Inf");
    const r = scrape(text, { kind: "vllm" });
    expect(r.notes.join("\n")).toContain("vllm:kv_cache_usage_perc: NaN ignored");
    expect(r.events).toEqual([]);
  });

  it("several vLLM engines become one worker each", () => {
    const text =
      VLLM_NEW() +
      'vllm:num_requests_running{engine="1",model_name="qwen3"} 9\nvllm:kv_cache_usage_perc{engine="1",model_name="qwen3"} 0.5\n';
    const r = scrape(
      text
        .replace(/# TYPE vllm:num_requests_running gauge\n/, "")
        .replace("# TYPE vllm:kv_cache_usage_perc gauge\n", ""),
      { kind: "vllm", worker_id: "v" },
    );
    expect(r.events.map((e) => [e.worker_id, e.requests_running])).toEqual([
      ["v-e0", 4],
      ["v-e1", 9],
    ]);
  });

  it("an unrecognised exposition under auto is a note, no events", () => {
    const r = scrape("process_cpu_seconds_total 3\n");
    expect(r.kind).toBeNull();
    expect(r.notes[0]).toContain("kind not detected");
  });
});
