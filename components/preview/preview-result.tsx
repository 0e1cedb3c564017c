"use client";
import Link from "next/link";
import { formatCount, formatDateTime, formatMs, formatPercent, formatRange } from "@/components/format";
import type { PreviewResult } from "@/server/preview/types";
import { causeRows, countRows, headlineRows, plannerRows, summarySentence, workerRows, type Row } from "./prepare";

function RowsTable({ rows, label, first }: { rows: readonly Row[]; label: string; first: string }) {
  if (rows.length === 0) return <p className="sub">{label}: none in either run.</p>;
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">{first}</th>
            <th scope="col">Baseline</th>
            <th scope="col">Candidate</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.metric}>
              <th scope="row">{r.metric}</th>
              <td className="num">{r.baseline}</td>
              <td className="num">{r.candidate}</td>
              <td className="num">{r.change}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A preview's result: headline figures with the baseline's error against the recording, breakdowns, sessions, assumptions. */
export function PreviewResultView({ result: r }: { result: PreviewResult }) {
  const head = headlineRows(r);
  const autoscaling = r.kind === "autoscaling";
  return (
    <div className="preview-result" data-testid="preview-result">
      <p role="status">
        <strong>{summarySentence(r)}</strong> Replayed {formatCount(r.measured.requests)} requests of{" "}
        {formatRange(r.window.from, r.window.to)} in {formatMs(r.elapsed_ms)}.
      </p>
      <div className="table-wrap">
        <table className="data-table" aria-label="Predicted against baseline">
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">Baseline (policies then)</th>
              <th scope="col">Candidate</th>
              <th scope="col">Change</th>
              <th scope="col">Measured in the window</th>
              <th scope="col">Baseline error</th>
            </tr>
          </thead>
          <tbody>
            {head.map((h) => (
              <tr key={h.metric}>
                <th scope="row">{h.metric}</th>
                <td className="num">{h.baseline}</td>
                <td className="num">{h.candidate}</td>
                <td className="num">{h.change}</td>
                <td className="num">{h.measured}</td>
                <td className="num">{h.error}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {autoscaling ? (
        <>
          <h5>Planner, replayed</h5>
          <RowsTable
            rows={plannerRows(r.baseline, r.candidate)}
            label="Planner decisions and GPU time"
            first="Figure"
          />
          {r.candidate.planner.decisions.length > 0 && (
            <ul aria-label="Candidate planner decisions">
              {r.candidate.planner.decisions.slice(0, 20).map((d, i) => (
                <li key={i}>
                  {formatDateTime(d.ts)}: {d.role} {d.action.replace("_", " ")} to {d.replicas_after} ({d.reason})
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
      <h5>Recomputed tokens by cause</h5>
      <RowsTable rows={causeRows(r.baseline, r.candidate)} label="Recomputed tokens by cause" first="Cause" />
      <h5>Evicted blocks</h5>
      <RowsTable
        rows={countRows(r.baseline.evictions_by_reason, r.candidate.evictions_by_reason)}
        label="Evictions by reason"
        first="Reason"
      />
      <RowsTable
        rows={countRows(r.baseline.evictions_by_class, r.candidate.evictions_by_class)}
        label="Evictions by retention class"
        first="Retention class"
      />
      <h5>KV pressure per worker</h5>
      <RowsTable rows={workerRows(r.baseline, r.candidate)} label="KV pressure per worker" first="Worker" />
      <h5>Sessions that gain or lose most</h5>
      {r.sessions.length === 0 ? (
        <p className="sub">No session changes.</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table" aria-label="Sessions that gain or lose most">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Baseline hit rate</th>
                <th scope="col">Candidate hit rate</th>
                <th scope="col">Cached tokens</th>
              </tr>
            </thead>
            <tbody>
              {r.sessions.map((s) => (
                <tr key={s.session_id}>
                  <th scope="row">
                    <Link href={`/sessions/${encodeURIComponent(s.session_id)}`}>{s.session_id}</Link>
                  </th>
                  <td className="num">{formatPercent(s.baseline_hit_rate)}</td>
                  <td className="num">{formatPercent(s.candidate_hit_rate)}</td>
                  <td className="num">
                    {s.cached_tokens_delta > 0 ? "+" : "−"}
                    {formatCount(Math.abs(s.cached_tokens_delta))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <details>
        <summary>Assumptions ({r.assumptions.length})</summary>
        <ul aria-label="Assumptions">
          {r.assumptions.map((a, i) => (
            <li key={i}>{a}</li>
          ))}
        </ul>
      </details>
    </div>
  );
}
