"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatAgo, formatRange } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { useRange } from "@/components/ui/use-range";
import { resolveRange } from "@/lib/time-range";
import { AlertRulesSection } from "@/components/alerts/rules-section";
import "@/components/ui/cluster-views.css";

const REFRESH_MS = 5_000;

const labelsText = (l: Record<string, string>) =>
  Object.entries(l)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");

/** The Alerts page: what fires now and what is pending, the history over the range, the rules in force, receivers. */
export function AlertsView() {
  const [range, setRange] = useRange();
  const trpc = useTRPC();
  const live = "preset" in range;
  const now = Math.floor(Date.now() / REFRESH_MS) * REFRESH_MS;
  const win = resolveRange(range, now);
  const q = useQuery({
    ...trpc.alerts.overview.queryOptions({ from: win.from, to: win.to + (live ? 1 : 0) }),
    refetchInterval: live ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const d = q.data;
  const enabled = d?.rules.rules.filter((r) => r.enabled) ?? [];
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <div className="sub">
            {live ? <span className="live">Live · refreshes every 5 s</span> : formatRange(win.from, win.to)}
          </div>
        </div>
        <div className="page-controls">
          <TimeRangePicker value={range} onChange={setRange} />
        </div>
      </div>
      {q.isError && (
        <LoadError what="the alerts" message={q.error.message} stale={Boolean(d)} onRetry={() => void q.refetch()} />
      )}
      {q.isPending && (
        <div className="table-wrap skeleton" role="progressbar" aria-busy="true" aria-label="Loading alerts" />
      )}
      {d && (
        <>
          <section className="section" aria-labelledby="firing-title">
            <h2 id="firing-title">Firing now</h2>
            {d.firing.length === 0 ? (
              <p className="notice" role="status">
                Nothing is firing.{" "}
                {enabled.length === 0
                  ? "No alert rule is enabled: every shipped rule is off until an operator enables it (below)."
                  : `${enabled.length} rule${enabled.length === 1 ? "" : "s"} enabled.`}
              </p>
            ) : (
              <div className="table-wrap">
                <table className="data-table" aria-label="Firing alerts">
                  <thead>
                    <tr>
                      <th scope="col">Alert</th>
                      <th scope="col">Severity</th>
                      <th scope="col">Where</th>
                      <th scope="col">Since</th>
                      <th scope="col">Shows it</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.firing.map((a) => (
                      <tr key={`${a.rule}:${a.key}`}>
                        <td>
                          <strong>{a.rule}</strong>
                          <div className="sub">{a.summary}</div>
                        </td>
                        <td>{a.severity}</td>
                        <td>{labelsText(a.labels)}</td>
                        <td>{formatAgo(a.firedAt, Date.now())}</td>
                        <td>
                          <Link href={a.link}>open</Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {d.pending.length > 0 && (
              <p className="sub">
                Pending (holding, not yet for long enough):{" "}
                {d.pending.map((a) => `${a.rule} ${labelsText(a.labels)}`).join("; ")}
              </p>
            )}
          </section>

          <section className="section" aria-labelledby="history-title">
            <h2 id="history-title">History</h2>
            {d.history.length === 0 ? (
              <p className="notice" role="status">
                No alert fired or resolved in this range.
              </p>
            ) : (
              <div className="table-wrap">
                <table className="data-table" aria-label="Alert history">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Alert</th>
                      <th scope="col">Event</th>
                      <th scope="col">Where</th>
                      <th scope="col">Figure</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.history.map((e, i) => (
                      <tr key={`${e.ts}:${e.rule}:${e.key}:${i}`}>
                        <td>{new Date(e.ts).toLocaleString()}</td>
                        <td>
                          <Link href={e.link}>{e.rule}</Link>
                        </td>
                        <td>{e.kind}</td>
                        <td>{labelsText(e.labels)}</td>
                        <td>{e.summary}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {d.historyLimited && (
              <p className="sub">Showing the newest {d.history.length}; pick a shorter range for older ones.</p>
            )}
          </section>

          <AlertRulesSection headingId="rules-title" />

          <section className="section" aria-labelledby="delivery-title">
            <h2 id="delivery-title">Delivery</h2>
            {d.receivers.length === 0 ? (
              <p className="notice" role="status">
                No receivers: add an Alertmanager or a webhook on the <Link href="/sources">Sources</Link> page.
              </p>
            ) : (
              <ul>
                {d.receivers.map((r) => (
                  <li key={r.id}>
                    <strong>{r.name}</strong> ({r.kind}, {r.url}):{" "}
                    {r.delivery
                      ? `${r.delivery.sent} sent, ${r.delivery.queued} queued, ${r.delivery.failed} failed, ${r.delivery.dropped} dropped` +
                        (r.delivery.lastError ? `; last error: ${r.delivery.lastError.reason}` : "")
                      : "delivery state is kept by the leader process"}
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </>
  );
}
