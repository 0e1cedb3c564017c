"use client";
import type { inferRouterOutputs } from "@trpc/server";
import { Fragment, useState } from "react";
import { formatCost, formatLost } from "@/components/charts/prepare/routing";
import { formatTime, NO_DATA } from "@/components/format";
import type { AppRouter } from "@/server/trpc/root";

export type Decision = inferRouterOutputs<AppRouter>["routing"]["list"]["items"][number];

const COLUMNS = 7;

/** Routing decisions, newest first; each row expands to every candidate's blocks and cost, winner and runner-up marked. */
export function DecisionsTable({ items, now }: { items: Decision[]; now: number }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Routing decisions">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Details</span>
            </th>
            <th scope="col">Time</th>
            <th scope="col">Request</th>
            <th scope="col">Chosen</th>
            <th scope="col" className="num">
              Cached / best
            </th>
            <th scope="col" className="num">
              Lost to routing
            </th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => {
            const expanded = open.has(d.id);
            const detailId = `decision-${d.id}`;
            return (
              <Fragment key={d.id}>
                <tr>
                  <td>
                    <button
                      type="button"
                      className="expander"
                      aria-expanded={expanded}
                      aria-controls={detailId}
                      aria-label={`Candidates of ${d.requestId}`}
                      onClick={() => toggle(d.id)}
                    >
                      {expanded ? "▾" : "▸"}
                    </button>
                  </td>
                  <td>{formatTime(d.ts, now)}</td>
                  <td className="mono">{d.requestId}</td>
                  <td>{d.chosenWorkerId}</td>
                  <td className="num">
                    {d.chosenOverlapBlocks} / {d.bestOverlapBlocks}
                  </td>
                  <td className="num">{d.lostBlocks > 0 ? formatLost(d.lostBlocks, d.lostTokens) : NO_DATA}</td>
                  <td className="why">{d.explanation.text}</td>
                </tr>
                {expanded && (
                  <tr className="detail-row">
                    <td colSpan={COLUMNS} id={detailId}>
                      <DecisionDetail d={d} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function DecisionDetail({ d }: { d: Decision }) {
  const blockSize = d.blockSize === null ? "block size unknown" : `${d.blockSize} tokens per block`;
  return (
    <div className="decision-detail">
      <p className="explanation" data-testid={`explanation-${d.requestId}`}>
        <strong>{d.chosenWorkerId}</strong> {d.explanation.text}
        {d.explanation.runnerUpId && <span className="sub"> (runner-up {d.explanation.runnerUpId})</span>}
      </p>
      <p className="sub">
        {d.promptBlocks} prompt blocks ({blockSize}) · temperature {d.temperature} · overlap credit {d.overlapCredit} ·
        prefill load scale {d.prefillLoadScale}
        {d.sessionId && <> · session {d.sessionId}</>}
      </p>
      <table className="data-table candidates" aria-label={`Candidates of ${d.requestId}`}>
        <thead>
          <tr>
            <th scope="col">Worker</th>
            <th scope="col" className="num">
              Cached blocks
            </th>
            <th scope="col" className="num">
              Prefill blocks
            </th>
            <th scope="col" className="num">
              Decode blocks
            </th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {d.candidates.map((c) => (
            <tr key={c.worker_id} data-mark={c.mark ?? undefined}>
              <th scope="row">{c.worker_id}</th>
              <td className="num">{c.overlap_blocks}</td>
              <td className="num">{c.prefill_blocks}</td>
              <td className="num">{c.decode_blocks}</td>
              <td className="num">{formatCost(c.cost)}</td>
              <td>
                {c.mark === "winner" && (
                  <span className="badge" data-tone="good">
                    winner
                  </span>
                )}
                {c.mark === "runner_up" && (
                  <span className="badge" data-tone="info">
                    runner-up
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.candidates.length < d.candidateCount && (
        <p className="sub">
          Showing {d.candidates.length} of {d.candidateCount} candidates: the cheapest, the winner and the runner-up.
        </p>
      )}
    </div>
  );
}
