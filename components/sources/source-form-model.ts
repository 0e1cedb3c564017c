import { sourceInput, type ConfiguredKind, type SourceInput } from "@/lib/sources/config";

/** What the Sources form edits: every input as text, per-kind config fields by name. */
export type SourceFormValues = {
  id: string;
  name: string;
  kind: ConfiguredKind;
  enabled: boolean;
  fields: Record<string, string>;
};
export type FieldErrors = Record<string, string>;

type FieldSpec = {
  name: string;
  label: string;
  type: "text" | "number" | "select" | "lines";
  options?: readonly string[];
  help?: string;
  optional?: boolean;
  /** Shown masked; the stored value comes back as SECRET_MARKER and is kept when sent back unchanged. */
  secret?: boolean;
};

/** The config fields each configured kind's form shows, in order. */
export const KIND_FIELDS: Record<ConfiguredKind, FieldSpec[]> = {
  prometheus: [
    { name: "url", label: "Metrics URL", type: "text", help: "http(s)://host:port/metrics" },
    {
      name: "kind",
      label: "Target kind",
      type: "select",
      options: ["auto", "dynamo-frontend", "dynamo-worker", "vllm", "sglang", "kvbm"],
      help: "auto detects it from the metric names served; kvbm: Dynamo's KV block manager endpoint (port 6880)",
    },
    { name: "interval_seconds", label: "Scrape interval (s)", type: "number" },
    {
      name: "timeout_seconds",
      label: "Timeout (s)",
      type: "number",
      optional: true,
      help: "default: the interval, at most 10 s",
    },
    {
      name: "worker_id",
      label: "Worker id",
      type: "text",
      optional: true,
      help: "the Switchyard worker this endpoint is; default host:port",
    },
    {
      name: "cluster",
      label: "Cluster",
      type: "text",
      optional: true,
      help: "the cluster its telemetry belongs to, e.g. prod-eu; empty: default",
    },
    {
      name: "labels",
      label: "Extra labels",
      type: "lines",
      optional: true,
      help: "one name=value per line, added to every series",
    },
    {
      name: "bearer_token",
      label: "Bearer token",
      type: "text",
      optional: true,
      secret: true,
      help: "sent as Authorization: Bearer; leave as •••• to keep the stored one (same scheme, host and port), empty to remove it",
    },
  ],
  "zmq-kv": [
    {
      name: "endpoint",
      label: "Publisher endpoint",
      type: "text",
      help: "tcp://host:5557 (vLLM --kv-events-config endpoint)",
    },
    { name: "topic", label: "Topic", type: "text", optional: true, help: "empty subscribes to every topic" },
    { name: "worker_id", label: "Worker id", type: "text" },
    { name: "model", label: "Model", type: "text", optional: true },
    { name: "block_size", label: "Block size (tokens)", type: "number", optional: true },
    {
      name: "cluster",
      label: "Cluster",
      type: "text",
      optional: true,
      help: "the cluster its telemetry belongs to, e.g. prod-eu; empty: default",
    },
    {
      name: "replay_endpoint",
      label: "Replay endpoint",
      type: "text",
      optional: true,
      help: "to fetch missed batches after a gap",
    },
  ],
  "trace-dir": [
    {
      name: "path",
      label: "Directory",
      type: "text",
      help: 'a folder name inside the import folder (SWITCHYARD_IMPORT_DIR) holding *.jsonl or *.jsonl.gz traces, e.g. dynamo/traces, or "." for the import folder itself; no absolute path, no ".."',
    },
    { name: "poll_seconds", label: "Poll every (s)", type: "number" },
    {
      name: "cluster",
      label: "Cluster",
      type: "text",
      optional: true,
      help: "the cluster its telemetry belongs to, e.g. prod-eu; empty: default",
    },
  ],
};

export const KIND_LABELS: Record<ConfiguredKind, string> = {
  prometheus: "Prometheus /metrics",
  "zmq-kv": "KV events (ZMQ)",
  "trace-dir": "Trace directory",
};

const DEFAULTS: Record<ConfiguredKind, Record<string, string>> = {
  prometheus: { kind: "auto", interval_seconds: "15" },
  "zmq-kv": {},
  "trace-dir": { poll_seconds: "5" },
};

/** Empty form values for a new source of a kind. */
export function newSourceValues(kind: ConfiguredKind): SourceFormValues {
  return { id: "", name: "", kind, enabled: true, fields: { ...DEFAULTS[kind] } };
}

/** Form values for editing a stored source. */
export function sourceToValues(s: {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
  config: Record<string, unknown>;
}): SourceFormValues {
  const kind = (s.kind in KIND_FIELDS ? s.kind : "prometheus") as ConfiguredKind;
  const fields: Record<string, string> = {};
  for (const f of KIND_FIELDS[kind]) {
    const v = s.config[f.name];
    if (v === undefined || v === null) continue;
    fields[f.name] =
      f.type === "lines" && typeof v === "object"
        ? Object.entries(v as Record<string, unknown>)
            .map(([k, x]) => `${k}=${String(x)}`)
            .join("\n")
        : String(v);
  }
  return { id: s.id, name: s.name, kind, enabled: s.enabled, fields };
}

/** Turn form text into the procedure input; blank optional fields are left out, numbers parsed. */
export function valuesToInput(v: SourceFormValues): unknown {
  const config: Record<string, unknown> = {};
  for (const f of KIND_FIELDS[v.kind]) {
    const raw = (v.fields[f.name] ?? "").trim();
    if (raw === "" && (f.optional || f.type === "number")) continue;
    if (f.type === "number") config[f.name] = raw === "" ? undefined : Number.isFinite(Number(raw)) ? Number(raw) : raw;
    else if (f.type === "lines")
      config[f.name] = Object.fromEntries(
        raw
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => [l.split("=")[0]!.trim(), l.slice(l.indexOf("=") + 1).trim()]),
      );
    else config[f.name] = raw;
  }
  return { id: v.id.trim(), name: v.name.trim(), kind: v.kind, enabled: v.enabled, config };
}

/** Validate with the procedure's own schema; errors keyed by "id", "name" or "config.<field>". */
export function validateSource(
  v: SourceFormValues,
): { ok: true; input: SourceInput } | { ok: false; errors: FieldErrors } {
  const result = sourceInput.safeParse(valuesToInput(v));
  if (result.success) return { ok: true, input: result.data };
  return {
    ok: false,
    errors: issuesToErrors(
      result.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    ),
  };
}

/** Server or client issues to one message per field (first wins); "source." prefixes from the procedure are dropped. */
export function issuesToErrors(issues: { path: string; message: string }[]): FieldErrors {
  const out: FieldErrors = {};
  for (const i of issues) {
    const path =
      i.path
        .replace(/^source\./, "")
        .split(".")
        .slice(0, 2)
        .join(".") || "form";
    out[path] ??= i.message;
  }
  return out;
}
