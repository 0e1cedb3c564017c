"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatDateTime } from "@/components/format";
import { LoadError } from "@/components/ui/load-error";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";

const SCOPES = [
  { value: "ingest", label: "ingest — send telemetry (ingest, OTLP, import)" },
  { value: "read", label: "read — JSON exports and the API as a viewer" },
  { value: "operate", label: "operate — the API as an operator" },
  { value: "admin", label: "admin — the API as an admin" },
] as const;
type Scope = (typeof SCOPES)[number]["value"];

const when = (t: number | null) => (t === null ? "never" : formatDateTime(t));

/** API tokens: create (value shown once), list with last use, revoke. */
export function TokensPanel() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const refresh = () => void refreshAfterWrite(qc, { queryKey: trpc.tokens.list.queryKey() });
  const create = useMutation(trpc.tokens.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const [name, setName] = useState("");
  const [scope, setScope] = useState<Scope>("ingest");

  function onCreate(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name, scope }, { onSuccess: () => setName("") });
  }

  return (
    <section className="card admin-section" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <form className="admin-form" onSubmit={onCreate} aria-label="Create a token">
        <label>
          Name
          <input required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
            {SCOPES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button className="button" type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {create.error && (
        <p role="alert" className="auth-error">
          {create.error.message}
        </p>
      )}
      {create.data && (
        <div className="notice" role="status">
          Copy the token now; it is not shown again. Send it as <code>Authorization: Bearer …</code>
          <pre data-testid="new-token">{create.data.token}</pre>
        </div>
      )}
      {revoke.error && (
        <p role="alert" className="auth-error">
          {revoke.error.message}
        </p>
      )}
      {tokens.isError && (
        <LoadError what="tokens" message={tokens.error.message} onRetry={() => void tokens.refetch()} />
      )}
      {tokens.isPending && <p className="sub">Loading tokens…</p>}
      {tokens.data && tokens.data.length === 0 && <p className="sub">No tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope</th>
              <th scope="col">Ends in</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{t.scope}</td>
                <td>
                  <code>{t.hint}</code>
                </td>
                <td>
                  {when(t.createdAt)} <span className="sub">by {t.createdBy}</span>
                </td>
                <td>{when(t.lastUsedAt)}</td>
                <td>
                  {t.revokedAt !== null ? (
                    `revoked ${when(t.revokedAt)}`
                  ) : (
                    <button className="button" type="button" onClick={() => revoke.mutate({ id: t.id })}>
                      Revoke {t.name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
