import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertSource } from "@/db/store/sources";
import { createToken } from "@/server/auth/tokens";
import { sourceReporter } from "@/server/sources/status";
import { useTempServerEnv } from "@/test/server-env";

let GET: typeof import("./route").GET;
let serverEngine: typeof import("@/server/runtime").serverEngine;
let serverStore: typeof import("@/server/runtime").serverStore;
let restore: () => Promise<void>;
const T = 1_764_400_000_000;

beforeAll(async () => {
  ({ restore } = await useTempServerEnv("switchyard-sources-", "sources-route-test-token-0123456789"));
  ({ GET } = await import("./route"));
  ({ serverEngine, serverStore } = await import("@/server/runtime"));
});

afterAll(async () => {
  serverEngine().db!.$client.close();
  await restore();
});

const get = (token?: string) =>
  GET(new Request("http://localhost/api/sources", { headers: token ? { authorization: `Bearer ${token}` } : {} }));

describe("GET /api/sources", () => {
  it("answers each source's kind, address, last success and error, series and missing metrics to a read token", async () => {
    const db = serverStore();
    await upsertSource(
      db,
      {
        id: "vllm-a",
        kind: "prometheus",
        name: "vLLM A",
        config: { url: "http://vllm-a:8000/metrics", kind: "vllm" },
        enabled: true,
      },
      T,
    );
    const report = sourceReporter(db, "vllm-a", "prometheus");
    await report.ok(T + 1, {
      series: 42,
      events: 3,
      missing: ["vllm:num_requests_waiting"],
      renamed: ["vllm:gpu_cache_usage_perc (older name of vllm:kv_cache_usage_perc)"],
    });
    await report.error(T + 2, "HTTP 503 from http://vllm-a:8000/metrics");
    const { token } = await createToken(db, { name: "monitor", scope: "read", createdBy: "test" }, T);
    const res = await get(token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { sources: unknown[] };
    expect(body.sources).toEqual([
      {
        id: "vllm-a",
        kind: "prometheus",
        name: "vLLM A",
        address: "http://vllm-a:8000/metrics",
        enabled: true,
        state: "error",
        last_success_at: T + 1,
        last_error_at: T + 2,
        last_error: "HTTP 503 from http://vllm-a:8000/metrics",
        error_count: 1,
        series: 42,
        events_total: 3,
        last_duration_ms: null,
        missing_metrics: ["vllm:num_requests_waiting"],
        renamed_metrics: ["vllm:gpu_cache_usage_perc (older name of vllm:kv_cache_usage_perc)"],
        sequence_gaps: 0,
      },
    ]);
  });

  it("401 without credentials, 401 for an ingest-only token", async () => {
    expect((await get()).status).toBe(401);
    const { token } = await createToken(serverStore(), { name: "sender", scope: "ingest", createdBy: "test" }, T);
    expect((await get(token)).status).toBe(401);
  });
});
