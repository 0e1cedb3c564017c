// Types for parse-prometheus-text-format 1.1 (the package ships none). Values are the exposition's text.
declare module "parse-prometheus-text-format" {
  export type ParsedSample = {
    value?: string;
    labels?: Record<string, string>;
    timestamp_ms?: string;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  };
  export type ParsedFamily = {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: ParsedSample[];
  };
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
