import type { SourceRow, SourceStatusRow } from "../../db/store/sources";
import { redactSecrets, SOURCE_SECRET_FIELDS } from "../../lib/secret-fields";

export type SourceState = "ok" | "error" | "never" | "disabled";

/** One source as the Sources page and GET /api/sources show it: config (secrets redacted) joined with its status. */
export type SourceView = {
  id: string;
  kind: string;
  name: string;
  configured: boolean;
  enabled: boolean;
  origin: string;
  address: string;
  config: Record<string, unknown>;
  state: SourceState;
  lastSuccessAt: number | null;
  lastErrorAt: number | null;
  lastError: string | null;
  errorCount: number;
  eventsTotal: number;
  lastEvents: number | null;
  series: number | null;
  durationMs: number | null;
  missing: string[];
  renamed: string[];
  gaps: number;
  detail: Record<string, unknown>;
};

const IMPLICIT_ADDRESS: Record<string, string> = {
  otlp: "POST /api/otlp/v1/logs",
  "trace-upload": "POST /api/import",
  ingest: "POST /api/ingest",
};

/** ok when the latest outcome is a success, error when it is a failure, never before either; disabled wins. */
export function sourceState(
  status: Pick<SourceStatusRow, "lastSuccessAt" | "lastErrorAt"> | null,
  enabled: boolean,
): SourceState {
  if (!enabled) return "disabled";
  if (!status || (status.lastSuccessAt === null && status.lastErrorAt === null)) return "never";
  if (status.lastErrorAt !== null && (status.lastSuccessAt === null || status.lastErrorAt > status.lastSuccessAt))
    return "error";
  return "ok";
}

/** Where a source reads from, for display: URL, endpoint, folder, or the receiving route. */
export function sourceAddress(kind: string, config: Record<string, unknown>): string {
  const value = config.url ?? config.endpoint ?? config.path;
  return typeof value === "string" ? value : (IMPLICIT_ADDRESS[kind] ?? "");
}

/** Configured sources in their order, then implicit ones (status without a sources row) by id. */
export function joinSources(sources: SourceRow[], statuses: SourceStatusRow[]): SourceView[] {
  const byId = new Map(statuses.map((s) => [s.id, s]));
  const configured = sources.map((s) =>
    view(s.id, s.kind, s.name, true, s.enabled, s.origin, s.config, byId.get(s.id) ?? null),
  );
  const known = new Set(sources.map((s) => s.id));
  const implicit = statuses
    .filter((s) => !known.has(s.id))
    .map((s) => view(s.id, s.kind, s.name, false, true, "implicit", {}, s));
  return [...configured, ...implicit];
}

function view(
  id: string,
  kind: string,
  name: string,
  configured: boolean,
  enabled: boolean,
  origin: string,
  config: Record<string, unknown>,
  status: SourceStatusRow | null,
): SourceView {
  return {
    id,
    kind,
    name,
    configured,
    enabled,
    origin,
    address: sourceAddress(kind, config),
    config: redactSecrets(config, SOURCE_SECRET_FIELDS),
    state: sourceState(status, enabled),
    lastSuccessAt: status?.lastSuccessAt ?? null,
    lastErrorAt: status?.lastErrorAt ?? null,
    lastError: status?.lastError ?? null,
    errorCount: status?.errorCount ?? 0,
    eventsTotal: status?.eventsTotal ?? 0,
    lastEvents: status?.lastEvents ?? null,
    series: status?.series ?? null,
    durationMs: status?.durationMs ?? null,
    missing: status?.missing ?? [],
    renamed: status?.renamed ?? [],
    gaps: status?.gaps ?? 0,
    detail: status?.detail ?? {},
  };
}
