"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { SEVERITIES, type AlertRule } from "@/lib/alerts/rules";
import { diffDocuments } from "@/lib/policies/versions";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";

type Issues = { errors?: { path: string; message: string }[] } | undefined;

/**
 * The rules in force as a form: each rule switched on or off with its threshold, scope, "for" and severity, published
 * as the next version with a comment (operators; the server refuses others). Field errors come back at their rule.
 */
export function RulesEditor({
  version,
  rules,
  onPublished,
}: {
  version: number | null;
  rules: AlertRule[];
  /** Told the version published (the editor is keyed by version, so the parent says so). */
  onPublished: (version: number) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [draft, setDraft] = useState<AlertRule[]>(rules);
  const [comment, setComment] = useState("");
  const [reviewing, setReviewing] = useState(false);
  const publish = useMutation(
    trpc.alerts.publishRules.mutationOptions({
      onSuccess: (r) => {
        onPublished(r.version);
        setComment("");
        setReviewing(false);
        void refreshAfterWrite(qc, { queryKey: trpc.alerts.pathKey() });
      },
    }),
  );
  const errors = ((publish.error?.data as { details?: Issues } | undefined)?.details?.errors ??
    (publish.error?.shape as { data?: Issues } | undefined)?.data?.errors ??
    []) as { path: string; message: string }[];
  const errorOf = (i: number) => errors.filter((e) => e.path.startsWith(`document.rules.${i}.`));
  const set = (i: number, patch: Partial<AlertRule>) => {
    setReviewing(false);
    setDraft((d) => d.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  };
  const num = (v: string) => (v.trim() === "" ? null : Number(v));
  const changes = diffDocuments({ rules }, { rules: draft }).map((c) => {
    const m = /^rules\.(\d+)\.(.*)$/.exec(c.path);
    return { ...c, path: m ? `${draft[Number(m[1])]?.name ?? m[1]}: ${m[2]}` : c.path };
  });
  const changed = changes.length > 0;
  const shown = (v: unknown) => (v === null || v === undefined ? "—" : String(v));
  return (
    <form
      aria-label="Alert rules"
      onSubmit={(e) => {
        e.preventDefault();
        publish.mutate({ document: { rules: draft }, baseVersion: version, comment });
      }}
    >
      <div className="table-wrap">
        <table className="data-table" aria-label="Alert rules">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">On</th>
              <th scope="col">Threshold</th>
              <th scope="col">Cluster</th>
              <th scope="col">Worker</th>
              <th scope="col">For (s)</th>
              <th scope="col">Severity</th>
            </tr>
          </thead>
          <tbody>
            {draft.map((r, i) => (
              <tr key={r.name}>
                <td>
                  <strong>{r.name}</strong>
                  <div className="sub">
                    {r.metric}
                    {r.threshold === null ? "" : r.metric === "hit_rate" ? " below" : " above"}
                  </div>
                  {errorOf(i).map((e) => (
                    <div key={e.path} role="alert" className="policies-error">
                      {e.path.replace(`document.rules.${i}.`, "")}: {e.message}
                    </div>
                  ))}
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${r.name} on`}
                    checked={r.enabled}
                    onChange={(e) => set(i, { enabled: e.target.checked })}
                  />
                </td>
                <td>
                  {r.threshold === null ? (
                    "—"
                  ) : (
                    <input
                      aria-label={`${r.name} threshold`}
                      inputMode="decimal"
                      size={7}
                      value={r.threshold ?? ""}
                      onChange={(e) => set(i, { threshold: num(e.target.value) })}
                    />
                  )}
                </td>
                <td>
                  <input
                    aria-label={`${r.name} cluster`}
                    size={10}
                    value={r.scope.cluster ?? ""}
                    placeholder="any"
                    onChange={(e) => set(i, { scope: { ...r.scope, cluster: e.target.value.trim() || null } })}
                  />
                </td>
                <td>
                  <input
                    aria-label={`${r.name} worker`}
                    size={10}
                    value={r.scope.worker ?? ""}
                    placeholder="any"
                    onChange={(e) => set(i, { scope: { ...r.scope, worker: e.target.value.trim() || null } })}
                  />
                </td>
                <td>
                  <input
                    aria-label={`${r.name} for seconds`}
                    inputMode="numeric"
                    size={5}
                    value={r.for_seconds}
                    onChange={(e) => set(i, { for_seconds: Number(e.target.value) })}
                  />
                </td>
                <td>
                  <select
                    aria-label={`${r.name} severity`}
                    value={r.severity}
                    onChange={(e) => set(i, { severity: e.target.value as AlertRule["severity"] })}
                  >
                    {SEVERITIES.map((s) => (
                      <option key={s} value={s}>
                        {s}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {reviewing && (
        <div className="table-wrap">
          <table className="data-table" aria-label="Changes to publish">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Now</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((c) => (
                <tr key={c.path}>
                  <td>{c.path}</td>
                  <td>{shown(c.before)}</td>
                  <td>{shown(c.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="capacity-target">
        <label htmlFor="rules-comment">Comment</label>
        <input
          id="rules-comment"
          value={comment}
          onChange={(e) => setComment(e.target.value)}
          style={{ width: "24em" }}
        />
        {!reviewing ? (
          // Keyed apart: one element that turned from button into submit while its click is handled would submit.
          <button key="review" className="button" type="button" disabled={!changed} onClick={() => setReviewing(true)}>
            Review changes
          </button>
        ) : (
          <button key="publish" className="button" type="submit" disabled={!changed || publish.isPending}>
            Publish rules{version === null ? " (v1)" : ` (v${version + 1})`}
          </button>
        )}
        {publish.isError && errors.length === 0 && (
          <span role="alert" className="policies-error">
            Not published: {publish.error.message}
          </span>
        )}
      </div>
    </form>
  );
}
