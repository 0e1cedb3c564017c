import { createHash } from "node:crypto";
import { prometheusSourceConfig, type PrometheusSourceConfig } from "../../../lib/sources/prometheus-config";

export type EnvTarget = { id: string; name: string; config: PrometheusSourceConfig };

const MAX_TARGETS = 200;

/**
 * Parse SWITCHYARD_SCRAPE_TARGETS: a JSON array of {url, kind, interval_seconds?, worker_id?, labels?}. Throws an
 * Error with one line naming the first bad entry and field. Ids are stable per URL so restarts upsert, not duplicate.
 */
export function parseScrapeTargets(raw: string | undefined): EnvTarget[] {
  if (raw === undefined || raw.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error("must be a JSON array of {url, kind, interval_seconds?, worker_id?, labels?}");
  }
  if (!Array.isArray(value))
    throw new Error("must be a JSON array of {url, kind, interval_seconds?, worker_id?, labels?}");
  if (value.length > MAX_TARGETS) throw new Error(`at most ${MAX_TARGETS} targets`);
  const seen = new Set<string>();
  return value.map((entry, i) => {
    const result = prometheusSourceConfig.strict().safeParse(entry);
    const url =
      entry && typeof entry === "object" && "url" in entry
        ? ` (${JSON.stringify(String((entry as { url: unknown }).url)).slice(0, 80)})`
        : "";
    if (result.success && (entry as { kind?: unknown }).kind === undefined)
      throw new Error(`entry ${i}${url}: kind: is required (dynamo-frontend, dynamo-worker, vllm, sglang or auto)`);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const field = issue.path.length ? issue.path.join(".") : "entry";
      throw new Error(`entry ${i}${url}: ${field}: ${issue.message}`);
    }
    const config = result.data;
    const id = envTargetId(config.url, config.worker_id);
    if (seen.has(id)) throw new Error(`entry ${i}${url}: duplicate of an earlier entry`);
    seen.add(id);
    return {
      id,
      name: config.worker_id ? `${config.worker_id} (${hostPath(config.url)})` : hostPath(config.url),
      config,
    };
  });
}

function envTargetId(url: string, workerId: string | undefined): string {
  const hash = createHash("sha256")
    .update(`${url}\n${workerId ?? ""}`)
    .digest("hex")
    .slice(0, 10);
  const slug = hostPath(url)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `env-${slug || "target"}-${hash}`;
}

function hostPath(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === "/metrics" ? "" : u.pathname}`;
  } catch {
    return url.slice(0, 60);
  }
}
