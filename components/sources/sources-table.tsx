"use client";
import type { SourceView } from "@/server/sources/summary";
import {
  formatAgo,
  formatCount,
  formatDateTime,
  formatDecimal,
  formatMs,
  formatPercent,
  formatRate,
  formatSeconds,
  NO_DATA,
} from "@/components/format";

const STATE_LABEL = { ok: "ok", error: "error", never: "never seen", disabled: "disabled" } as const;
const KIND_LABEL: Record<string, string> = {
  prometheus: "Prometheus",
  "zmq-kv": "KV events",
  "trace-dir": "Trace dir",
  otlp: "OTLP logs",
  "trace-upload": "Trace upload",
  ingest: "Ingest API",
};

type Aggregates = Partial<
  Record<
    "requests_per_s" | "ttft_p50_s" | "ttft_p95_s" | "itl_p50_s" | "prefix_hit_rate" | "queued" | "inflight",
    number | null
  >
>;

/** Every source with its state, last data, volume and errors; configured ones can be edited or removed. */
export function SourcesTable({
  rows,
  now,
  confirming,
  onEdit,
  onRemove,
  onConfirm,
  onCancelRemove,
}: {
  rows: SourceView[];
  now: number;
  confirming: string | null;
  onEdit: (row: SourceView) => void;
  onRemove: (id: string) => void;
  onConfirm: (id: string) => void;
  onCancelRemove: () => void;
}) {
  return (
    <div className="table-wrap">
      <table className="data-table sources-table">
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Last data</th>
            <th scope="col" className="num">
              Series
            </th>
            <th scope="col" className="num">
              Events
            </th>
            <th scope="col" className="num">
              Errors
            </th>
            <th scope="col">Details</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-testid={`source-row-${r.id}`}>
              <td className="sources-name">
                <strong>{r.name}</strong>
                <div className="sub">
                  <code>{r.address || r.id}</code>
                  {r.origin === "env" && <span className="sources-tag">from environment</span>}
                </div>
              </td>
              <td>{KIND_LABEL[r.kind] ?? r.kind}</td>
              <td>
                <span className="sources-state" data-state={r.state} data-testid={`source-state-${r.id}`}>
                  {STATE_LABEL[r.state]}
                </span>
              </td>
              <td title={r.lastSuccessAt ? formatDateTime(r.lastSuccessAt) : undefined}>
                {r.lastSuccessAt === null ? "never" : formatAgo(r.lastSuccessAt, now)}
                {r.durationMs !== null && <div className="sub">took {formatMs(r.durationMs)}</div>}
              </td>
              <td className="num" data-testid={`source-series-${r.id}`}>
                {formatCount(r.series)}
              </td>
              <td className="num">{formatCount(r.eventsTotal)}</td>
              <td className="num">{formatCount(r.errorCount)}</td>
              <td className="sources-detail">
                <Details row={r} now={now} />
              </td>
              <td className="sources-row-actions">
                <div className="sources-buttons">
                  {r.configured && confirming !== r.id && (
                    <>
                      <button className="button" type="button" onClick={() => onEdit(r)} aria-label={`Edit ${r.name}`}>
                        Edit
                      </button>
                      <button
                        className="button"
                        type="button"
                        onClick={() => onRemove(r.id)}
                        aria-label={`Remove ${r.name}`}
                      >
                        Remove
                      </button>
                    </>
                  )}
                  {confirming === r.id && (
                    <span role="group" aria-label={`Confirm removing ${r.name}`}>
                      <button className="button sources-danger" type="button" onClick={() => onConfirm(r.id)} autoFocus>
                        Confirm remove
                      </button>
                      <button className="button" type="button" onClick={onCancelRemove}>
                        Keep
                      </button>
                    </span>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type KvbmDetail = {
  worker_id: string;
  per_s: Record<string, number | null>;
  host_hit_rate: number | null;
  disk_hit_rate: number | null;
  series: string[];
};

const rate = (v: number | null | undefined) =>
  v == null ? NO_DATA : `${v < 10 ? formatDecimal(v) : formatCount(Math.round(v))} blocks/s`;

/** The KVBM series a source reports: tier movements since the previous scrape and the host/disk hit rates. */
function KvbmLine({ id, kvbm }: { id: string; kvbm: KvbmDetail | null | undefined }) {
  if (!kvbm) return null;
  const p = kvbm.per_s;
  return (
    <p className="sub" data-testid={`source-kvbm-${id}`}>
      KVBM for {kvbm.worker_id}: offload GPU→host {rate(p.offload_d2h)}, host→disk {rate(p.offload_h2d)}, GPU→disk{" "}
      {rate(p.offload_d2d)} · onboard host→GPU {rate(p.onboard_h2d)}, disk→GPU {rate(p.onboard_d2d)} · host hits{" "}
      {formatPercent(kvbm.host_hit_rate)} · disk hits {formatPercent(kvbm.disk_hit_rate)}{" "}
      <span title={kvbm.series.join(", ")}>({kvbm.series.length} kvbm_* series)</span>
    </p>
  );
}

function Details({ row, now }: { row: SourceView; now: number }) {
  const agg = (row.detail.aggregates ?? null) as Aggregates | null;
  const problems = Array.isArray(row.detail.problems) ? (row.detail.problems as string[]) : [];
  const kind = typeof row.detail.detected_kind === "string" ? row.detail.detected_kind : null;
  const note = typeof row.detail.note === "string" ? row.detail.note : null;
  return (
    <>
      {row.state === "error" && row.lastError && (
        <p className="sources-error" data-testid={`source-error-${row.id}`}>
          {row.lastError}{" "}
          <span className="sub">({row.lastErrorAt === null ? "never" : formatAgo(row.lastErrorAt, now)})</span>
        </p>
      )}
      {row.missing.length > 0 && (
        <p className="sources-warn">
          Expected but missing: <code>{row.missing.join(", ")}</code>
        </p>
      )}
      {row.renamed.length > 0 && (
        <p className="sub">
          Older names in use: <code>{row.renamed.join("; ")}</code>
        </p>
      )}
      {row.gaps > 0 && <p className="sources-warn">{row.gaps} sequence gap(s)</p>}
      {kind && agg && (
        <p className="sub">
          {kind}
          {agg.requests_per_s != null && ` · ${formatRate(agg.requests_per_s)} req/s`}
          {agg.ttft_p50_s != null &&
            ` · TTFT p50 ${formatSeconds(agg.ttft_p50_s)} p95 ${formatSeconds(agg.ttft_p95_s)}`}
          {agg.prefix_hit_rate != null && ` · prefix hits ${formatPercent(agg.prefix_hit_rate)}`}
          {agg.inflight != null && ` · ${agg.inflight} running`}
          {agg.queued != null && ` · ${agg.queued} waiting`}
        </p>
      )}
      {note && <p className="sub">{note}</p>}
      <KvbmLine id={row.id} kvbm={row.detail.kvbm as KvbmDetail | null | undefined} />
      {problems.length > 0 && (
        <details>
          <summary>{problems.length} problem(s) in the last pass, good data kept</summary>
          <ul className="sources-problems">
            {problems.map((p, i) => (
              <li key={i}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
