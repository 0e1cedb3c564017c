"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatAgo } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { RECEIVER_KINDS } from "@/lib/alerts/receivers";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";

const REFRESH_MS = 5_000;
type Kind = (typeof RECEIVER_KINDS)[number];
type Draft = { id?: string; name: string; kind: Kind; url: string; secret: string; enabled: boolean };
const EMPTY: Draft = { name: "", kind: "alertmanager", url: "", secret: "", enabled: true };

/** Where alerts go: Alertmanagers and signed webhooks, each with its delivery state (operators add and remove them). */
export function ReceiversSection() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [now] = useState(() => Date.now());
  const overview = useQuery({
    ...trpc.alerts.overview.queryOptions({ from: now - 3_600_000, to: now + 3_600_000 }),
    refetchInterval: REFRESH_MS,
  });
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const invalidate = () => refreshAfterWrite(qc, { queryKey: trpc.alerts.pathKey() });
  const upsert = useMutation(
    trpc.alerts.upsertReceiver.mutationOptions({
      onSuccess: (r) => {
        setDraft(null);
        setSaved(`Saved receiver ${r.id}.`);
        void invalidate();
      },
    }),
  );
  const remove = useMutation(
    trpc.alerts.removeReceiver.mutationOptions({
      onSuccess: () => {
        setSaved("Receiver removed.");
        void invalidate();
      },
    }),
  );
  const rows = overview.data?.receivers;
  const set = (patch: Partial<Draft>) => setDraft((d) => (d ? { ...d, ...patch } : d));
  return (
    <section className="section" aria-labelledby="receivers-title">
      <div className="sources-section-head">
        <h2 id="receivers-title">Alert receivers</h2>
        {!draft && (
          <button className="button" type="button" onClick={() => (setSaved(null), setDraft(EMPTY))}>
            Add alert receiver
          </button>
        )}
      </div>
      <p className="sub">
        Where alerts go: a Prometheus Alertmanager (its base URL; alerts are posted to /api/v2/alerts) or a webhook
        whose bodies are signed with HMAC-SHA256. Secrets are never shown; leave •••• to keep the stored one.
      </p>
      {saved && (
        <p className="sources-ok" role="status">
          {saved}
        </p>
      )}
      {draft && (
        <form
          className="admin-form"
          aria-label="Alert receiver"
          onSubmit={(e) => {
            e.preventDefault();
            upsert.mutate({
              receiver: {
                ...(draft.id ? { id: draft.id } : {}),
                name: draft.name,
                kind: draft.kind,
                url: draft.url,
                secret: draft.kind === "webhook" ? draft.secret : null,
                enabled: draft.enabled,
              },
            });
          }}
        >
          <label>
            Name <input value={draft.name} onChange={(e) => set({ name: e.target.value })} required />
          </label>
          <label>
            Kind{" "}
            <select value={draft.kind} onChange={(e) => set({ kind: e.target.value as Kind })}>
              <option value="alertmanager">Alertmanager</option>
              <option value="webhook">Webhook</option>
            </select>
          </label>
          <label>
            URL{" "}
            <input
              value={draft.url}
              onChange={(e) => set({ url: e.target.value })}
              placeholder="http://alertmanager:9093"
              required
            />
          </label>
          {draft.kind === "webhook" && (
            <label>
              Signing secret{" "}
              <input value={draft.secret} onChange={(e) => set({ secret: e.target.value })} autoComplete="off" />
            </label>
          )}
          <label>
            <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />{" "}
            Enabled
          </label>
          <div>
            <button className="button" type="submit" disabled={upsert.isPending}>
              Save receiver
            </button>{" "}
            <button className="button" type="button" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
          {upsert.isError && (
            <p className="sources-error" role="alert">
              Not saved: {upsert.error.message}
            </p>
          )}
        </form>
      )}
      {overview.isError && (
        <LoadError
          what="the alert receivers"
          message={overview.error.message}
          stale={Boolean(rows)}
          onRetry={() => void overview.refetch()}
        />
      )}
      {rows && rows.length === 0 && (
        <p className="notice" role="status">
          No alert receivers yet: alerts fire on the Alerts page only until you add one.
        </p>
      )}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table className="data-table" aria-label="Alert receivers">
            <thead>
              <tr>
                <th scope="col">Receiver</th>
                <th scope="col">Kind</th>
                <th scope="col">URL</th>
                <th scope="col">Delivery</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>
                    <strong>{r.name}</strong>
                    {!r.enabled && <span className="sub"> (off)</span>}
                  </td>
                  <td>{r.kind}</td>
                  <td>{r.url}</td>
                  <td>
                    {r.delivery
                      ? `${r.delivery.sent} sent, ${r.delivery.queued} queued, ${r.delivery.failed} failed, ${r.delivery.dropped} dropped` +
                        (r.delivery.lastError
                          ? ` · last error ${formatAgo(r.delivery.lastError.at, Date.now())}: ${r.delivery.lastError.reason}`
                          : "")
                      : "kept by the leader process"}
                  </td>
                  <td>
                    <button
                      className="button"
                      type="button"
                      onClick={() =>
                        setDraft({
                          id: r.id,
                          name: r.name,
                          kind: r.kind,
                          url: r.url,
                          secret: r.secret ?? "",
                          enabled: r.enabled,
                        })
                      }
                    >
                      Edit
                    </button>{" "}
                    <button className="button" type="button" onClick={() => remove.mutate({ id: r.id })}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
