import { z } from "zod";
import { outboundUrl } from "../../outbound/url";

export const SCRAPE_KINDS = ["dynamo-frontend", "dynamo-worker", "vllm", "sglang", "kvbm", "auto"] as const;
export type ScrapeKind = (typeof SCRAPE_KINDS)[number];

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * One Prometheus /metrics endpoint. kind picks the metric mapping (auto detects it from the families served);
 * worker_id names the Switchyard worker for single-worker endpoints (vLLM, SGLang, a Dynamo worker); labels are
 * added to every scraped series unless the series has its own value.
 */
export const prometheusSourceConfig = z.object({
  url: outboundUrl,
  kind: z.enum(SCRAPE_KINDS, { error: `must be one of ${SCRAPE_KINDS.join(", ")}` }).default("auto"),
  interval_seconds: z
    .number({ error: "must be a number of seconds" })
    .min(1, "must be at least 1")
    .max(3_600, "must be at most 3600")
    .default(15),
  timeout_seconds: z.number({ error: "must be a number of seconds" }).min(0.1).max(120).optional(),
  worker_id: z.string().trim().min(1, "must not be empty").max(128).optional(),
  labels: z
    .record(z.string().max(128), z.string().max(256))
    .superRefine((r, ctx) => {
      const names = Object.keys(r);
      if (names.length > 20) ctx.addIssue({ code: "custom", message: "at most 20 labels" });
      const bad = names.find((n) => !LABEL_NAME.test(n));
      if (bad !== undefined)
        ctx.addIssue({ code: "custom", message: `${JSON.stringify(bad)} must be a Prometheus label name` });
    })
    .optional(),
});

export type PrometheusSourceConfig = z.output<typeof prometheusSourceConfig>;
export type PrometheusSourceConfigInput = z.input<typeof prometheusSourceConfig>;
