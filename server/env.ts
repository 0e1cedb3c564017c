import { z } from "zod";
import { policyScopeName } from "../lib/policy-scope";
import { parseScrapeTargets } from "./sources/prometheus/env-targets";
import { maskUrl } from "../lib/mask-url";
import { parseHostList } from "./outbound/policy";
import { outboundUrl } from "../lib/outbound-url";
import { parseTrustedProxies } from "./auth/proxy-trust";
import { parseClusterAttributes } from "./sources/otlp/cluster-attributes";

function hostListIssues(raw: string | undefined, ctx: z.RefinementCtx): void {
  try {
    if (raw !== undefined) parseHostList(raw);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
  }
}

function trustProxyIssues(raw: string | undefined, ctx: z.RefinementCtx): void {
  try {
    parseTrustedProxies(raw);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
  }
}

// The one reader of process.env: every setting, validated, with its default.
const schema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).max(255).default("0.0.0.0"),
  SWITCHYARD_DB: z.string().min(1).max(4096).default("./data/switchyard.db"),
  // PostgreSQL instead of the SQLite file (see README "PostgreSQL"); unset: SQLite.
  SWITCHYARD_DATABASE_URL: z
    .string()
    .max(4096)
    .regex(/^postgres(ql)?:\/\/\S+$/, "must be a postgres:// or postgresql:// URL")
    .optional(),
  SWITCHYARD_INGEST_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters")
    .max(256)
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
    .optional(),
  // An admin API token created on a database without users or tokens (unattended setups).
  SWITCHYARD_BOOTSTRAP_API_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters")
    .max(256)
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
    .optional(),
  SWITCHYARD_SESSION_HOURS: z.coerce
    .number()
    .min(0.01)
    .max(24 * 30)
    .default(12),
  // Set by `npm start`: this run's generated password for the local demo admin "demo".
  SWITCHYARD_DEMO_ADMIN_PASSWORD: z.string().min(12, "must be at least 12 characters").max(256).optional(),
  SWITCHYARD_RAW_RETENTION_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  // Requests, tools, routing and planner decisions, reasoning spans and miss attribution: days kept (rollups: 400 days).
  SWITCHYARD_RETENTION_DAYS: z.coerce.number().int("must be a whole number of days").min(1).max(3650).default(30),
  // Unset: ingestWorkers() picks by engine.
  SWITCHYARD_INGEST_WORKERS: z.coerce.number().int().min(0).max(16).optional(),
  SWITCHYARD_RETENTION_SWEEP_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  // Set by `npm start`: the embedded simulated cluster's control API, registered as a policy target.
  SWITCHYARD_SIM_CONTROL_URL: outboundUrl.optional(),
  SWITCHYARD_SIM_CONTROL_TOKEN: z.string().min(16, "must be at least 16 characters").max(512).optional(),
  // Set by `npm start -- --scenario fleet`: the simulated fleet's policy scopes (clusters, and `cluster@model` for each
  // model of a cluster serving two), each registered as a policy target of its own.
  SWITCHYARD_SIM_CLUSTERS: z
    .string()
    .max(4_096)
    .transform((v) =>
      v
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean),
    )
    .pipe(z.array(policyScopeName).max(64))
    .optional(),
  // JSON array of Prometheus scrape targets, upserted as sources at start (see server/sources/prometheus/env-targets.ts).
  SWITCHYARD_SCRAPE_TARGETS: z
    .string()
    .max(200_000)
    .optional()
    .superRefine((raw, ctx) => {
      try {
        parseScrapeTargets(raw);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
      }
    }),
  SWITCHYARD_RECONCILE_SECONDS: z.coerce.number().min(0.2).max(3600).default(5),
  // How often the leader evaluates the alert rules in force (server/alerts).
  SWITCHYARD_ALERT_EVALUATE_SECONDS: z.coerce.number().min(1).max(3600).default(15),
  // The console's address as the on-call person reaches it: alert links point there (unset: http://localhost:PORT).
  SWITCHYARD_PUBLIC_URL: z.string().url("must be a URL such as https://switchyard.example.com").max(2048).optional(),
  // File-writing policy targets (planner-file) write only inside this folder (created at first use).
  SWITCHYARD_TARGET_DIR: z.string().min(1).max(4096).default("./data/targets"),
  // Watched trace directories (trace-dir sources) are read only inside this folder (created at first use).
  SWITCHYARD_IMPORT_DIR: z.string().min(1).max(4096).default("./data/imports"),
  // A policy preview whose estimated memory is above this many MB is refused before it starts (one hour of the
  // 8-worker steady demo takes ~620 MB at its peak with its helper thread, estimated ~970).
  SWITCHYARD_PREVIEW_MEMORY_MB: z.coerce.number().int().min(16).max(65_536).default(1024),
  // Key for the secrets stored in the database (AES-256-GCM): 32 bytes as 64 hex digits or base64. Unset on SQLite:
  // generated once into the data folder (mode 0600); required on PostgreSQL.
  SWITCHYARD_SECRET_KEY: z
    .string()
    .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, "must be 32 bytes as 64 hex digits or base64")
    .optional(),
  // Outbound requests (scrapes, policy pushes, alert deliveries): comma-separated CIDRs and host names refused
  // (unset: link-local and cloud metadata names), and when ALLOW is set, the only ones allowed.
  SWITCHYARD_OUTBOUND_DENY: z.string().max(20_000).optional().superRefine(hostListIssues),
  SWITCHYARD_OUTBOUND_ALLOW: z.string().max(20_000).optional().superRefine(hostListIssues),
  // Comma-separated proxy addresses/CIDRs whose X-Forwarded-* headers are honoured (unset: never).
  SWITCHYARD_TRUST_PROXY: z.string().max(20_000).optional().superRefine(trustProxyIssues),
  // OTLP logs: the resource attributes that name a record's cluster, comma-separated, tried in order.
  SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES: z
    .string()
    .max(4096)
    .optional()
    .transform((raw, ctx) => {
      try {
        return parseClusterAttributes(raw);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    }),
  // Switchyard's own log (JSON lines on stdout): fatal, error, warn, info, debug, trace or silent.
  SWITCHYARD_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
});

export type Env = z.infer<typeof schema>;

export class EnvError extends Error {}

/** Validate a raw environment; throws EnvError with one line naming the first bad setting. */
export function parseEnv(raw: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0] ?? "environment");
  const value = name === "SWITCHYARD_DATABASE_URL" ? maskUrl(raw[name] ?? "") : (raw[name] ?? "");
  const shown = /TOKEN|SECRET|PASSWORD/.test(name) ? "" : `=${JSON.stringify(value)}`;
  throw new EnvError(`invalid setting ${name}${shown}: ${issue.message}`);
}

let cached: Env | undefined;

/** The validated settings of this process (read once). */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/**
 * Ingest worker threads (SWITCHYARD_INGEST_WORKERS, else one). On SQLite: in WAL mode a connection drops its whole page
 * cache whenever another connection has written since its last transaction, so two ingest connections taking turns
 * each start every batch cold (the steady hour through bench:storage, alternating runs: 20-23% more ingest CPU per
 * event with two than with one, 0.27x against 0.34x raw inserts). On PostgreSQL: one thread stores every body in the
 * order it came (a second would answer a turn naming a request of the other's body in flight unknown_prefix).
 */
export function ingestWorkers(env: Pick<Env, "SWITCHYARD_INGEST_WORKERS" | "SWITCHYARD_DATABASE_URL">): number {
  return env.SWITCHYARD_INGEST_WORKERS ?? 1;
}
