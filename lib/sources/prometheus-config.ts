import { z } from "zod";
import { clusterName } from "../cluster-name";
import { outboundUrl } from "../outbound-url";
import { SECRET_MARKER } from "../secret-fields";

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
  /** The cluster the endpoint's workers belong to (absent: default). */
  cluster: clusterName.optional(),
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
  // Sent as "Authorization: Bearer <token>" with each scrape; stored sealed (enc:v1:…), shown as the marker.
  bearer_token: z
    .string()
    .min(1, "must not be empty")
    .max(4_096)
    .refine(
      (v) => v === SECRET_MARKER || v.startsWith("enc:v1:") || (v.length <= 2_048 && /^[\x21-\x7e]+$/.test(v)),
      "must be printable ASCII without spaces, at most 2048 characters",
    )
    .optional(),
});

export type PrometheusSourceConfig = z.output<typeof prometheusSourceConfig>;
export type PrometheusSourceConfigInput = z.input<typeof prometheusSourceConfig>;
