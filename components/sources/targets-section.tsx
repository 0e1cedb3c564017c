"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { POLICY_KINDS } from "@/lib/policies/policies";
import type { TargetInput } from "@/lib/policies/targets";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";
import type { FieldErrors } from "./source-form-model";
import { FormFooter } from "./source-form";
import { useCheckedForm } from "./use-checked-form";
import {
  ADAPTER_FIELDS,
  ADAPTER_KINDS,
  ADAPTERS,
  newTargetValues,
  SECRET_MARKER,
  targetServerErrors,
  targetToValues,
  validateTarget,
  type TargetFormValues,
} from "./target-form-model";

const REFRESH_MS = 2_000;
type Issues = { issues?: { path: string; message: string }[] | null } | undefined;

/** Policy push targets: adapter, kinds, enabled; add, edit and remove through policies.targets.*. */
export function TargetsSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.policies.targets.list.queryOptions(), refetchInterval: REFRESH_MS });
  const [form, setForm] = useState<{ values: TargetFormValues; editing: boolean } | null>(null);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const invalidate = () => refreshAfterWrite(queryClient, { queryKey: trpc.policies.pathKey() });
  const upsert = useMutation(
    trpc.policies.targets.upsert.mutationOptions({
      onSuccess: (res) => {
        setForm(null);
        setSaved(`Saved target ${res.id}.`);
        void invalidate();
      },
      onError: (err) =>
        setServerErrors({ form: err.message, ...targetServerErrors((err.data as Issues)?.issues ?? []) }),
    }),
  );
  const remove = useMutation(
    trpc.policies.targets.remove.mutationOptions({
      onSuccess: (res) => {
        setConfirming(null);
        setSaved(`Removed target ${res.id}.`);
        void invalidate();
      },
    }),
  );
  const rows = list.data;
  const open = (values: TargetFormValues, editing: boolean) => {
    setServerErrors({});
    setSaved(null);
    setForm({ values, editing });
  };

  return (
    <section className="section" aria-labelledby="targets-title">
      <div className="sources-section-head">
        <h2 id="targets-title">Policy targets</h2>
        {!form && (
          <button className="button" type="button" onClick={() => open(newTargetValues(), false)}>
            Add policy target
          </button>
        )}
      </div>
      <p className="sub">
        Where published policies are pushed. Tokens are never shown; leave •••• to keep the stored one.
      </p>
      {saved && (
        <p className="sources-ok" role="status">
          {saved}
        </p>
      )}
      {remove.isError && (
        <p className="sources-error" role="alert">
          Could not remove: {remove.error.message}
        </p>
      )}
      {form && (
        <TargetForm
          key={form.values.id || "new"}
          defaultValues={form.values}
          editing={form.editing}
          serverErrors={serverErrors}
          pending={upsert.isPending}
          onCancel={() => setForm(null)}
          onSubmit={(target) => {
            setServerErrors({});
            upsert.mutate({ target });
          }}
        />
      )}
      {list.isError && (
        <LoadError
          what="the policy targets"
          message={list.error.message}
          stale={Boolean(rows)}
          onRetry={() => void list.refetch()}
        />
      )}
      {list.isPending && (
        <div className="table-wrap skeleton" role="progressbar" aria-busy="true" aria-label="Loading policy targets" />
      )}
      {rows && rows.length === 0 && (
        <p className="notice" role="status">
          No policy targets yet: published policies reach no cluster until you add one.
        </p>
      )}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">Target</th>
                <th scope="col">Cluster</th>
                <th scope="col">Adapter</th>
                <th scope="col">Address</th>
                <th scope="col">Kinds</th>
                <th scope="col">Enabled</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id} data-testid={`target-row-${t.id}`}>
                  <td>
                    <strong>{t.name}</strong>
                    <div className="sub">{t.id}</div>
                  </td>
                  <td>{t.cluster}</td>
                  <td>{t.adapter}</td>
                  <td>
                    <code>{String(t.config.url ?? t.config.path ?? "")}</code>
                  </td>
                  <td>{t.kinds.join(", ")}</td>
                  <td>{t.enabled ? "yes" : "no"}</td>
                  <td className="sources-row-actions">
                    <div className="sources-buttons">
                      {confirming === t.id ? (
                        <span role="group" aria-label={`Confirm removing ${t.name}`}>
                          <button
                            className="button sources-danger"
                            type="button"
                            autoFocus
                            onClick={() => remove.mutate({ id: t.id })}
                          >
                            Confirm remove
                          </button>
                          <button className="button" type="button" onClick={() => setConfirming(null)}>
                            Keep
                          </button>
                        </span>
                      ) : (
                        <>
                          <button
                            className="button"
                            type="button"
                            aria-label={`Edit ${t.name}`}
                            onClick={() => open(targetToValues(t), true)}
                          >
                            Edit
                          </button>
                          <button
                            className="button"
                            type="button"
                            aria-label={`Remove ${t.name}`}
                            onClick={() => setConfirming(t.id)}
                          >
                            Remove
                          </button>
                        </>
                      )}
                    </div>
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

function TargetForm({
  defaultValues,
  editing,
  serverErrors,
  pending,
  onSubmit,
  onCancel,
}: {
  defaultValues: TargetFormValues;
  editing: boolean;
  serverErrors: FieldErrors;
  pending: boolean;
  onSubmit: (t: TargetInput) => void;
  onCancel: () => void;
}) {
  const {
    values: v,
    setValues: setV,
    shown,
    submit,
  } = useCheckedForm(defaultValues, validateTarget, onSubmit, serverErrors);
  const title = editing ? "Edit policy target" : "Add policy target";
  const err = (key: string, id: string) =>
    shown[key] ? (
      <p className="sources-error" id={`${id}-error`} role="alert">
        {shown[key]}
      </p>
    ) : null;
  return (
    <form className="sources-form" onSubmit={submit} noValidate aria-label={title}>
      <h3>{title}</h3>
      {shown.form && (
        <p className="sources-error" role="alert">
          {shown.form}
        </p>
      )}
      <div className="sources-grid">
        <div className="sources-field" data-invalid={shown.id ? "true" : undefined}>
          <label htmlFor="target-id">Target id</label>
          <input
            id="target-id"
            value={v.id}
            readOnly={editing}
            onChange={(e) => setV({ ...v, id: e.target.value })}
            aria-invalid={Boolean(shown.id)}
          />
          {err("id", "target-id")}
        </div>
        <div className="sources-field" data-invalid={shown.name ? "true" : undefined}>
          <label htmlFor="target-name">Target name</label>
          <input
            id="target-name"
            value={v.name}
            onChange={(e) => setV({ ...v, name: e.target.value })}
            aria-invalid={Boolean(shown.name)}
          />
          {err("name", "target-name")}
        </div>
        <div className="sources-field" data-invalid={shown.cluster ? "true" : undefined}>
          <label htmlFor="target-cluster">Cluster</label>
          <input
            id="target-cluster"
            value={v.cluster}
            onChange={(e) => setV({ ...v, cluster: e.target.value })}
            aria-invalid={Boolean(shown.cluster)}
            aria-describedby="target-cluster-help"
          />
          <span className="sub" id="target-cluster-help">
            receives this cluster&apos;s policy versions only; cluster@model for one model&apos;s own line
          </span>
          {err("cluster", "target-cluster")}
        </div>
        <div className="sources-field">
          <label htmlFor="target-adapter">Adapter</label>
          <select
            id="target-adapter"
            value={v.adapter}
            disabled={editing}
            onChange={(e) =>
              setV({
                ...newTargetValues(e.target.value as TargetFormValues["adapter"]),
                id: v.id,
                name: v.name,
                cluster: v.cluster,
              })
            }
          >
            {ADAPTERS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </div>
        {ADAPTER_FIELDS[v.adapter].map((f) => {
          const id = `target-config-${f.name}`;
          return (
            <div className="sources-field" key={f.name} data-invalid={shown[`config.${f.name}`] ? "true" : undefined}>
              <label htmlFor={id}>{f.label}</label>
              <input
                id={id}
                type={f.secret && v.fields[f.name] !== SECRET_MARKER ? "password" : "text"}
                autoComplete="off"
                value={v.fields[f.name] ?? ""}
                onChange={(e) => setV({ ...v, fields: { ...v.fields, [f.name]: e.target.value } })}
                aria-invalid={Boolean(shown[`config.${f.name}`])}
                aria-describedby={f.help ? `${id}-help` : undefined}
              />
              {f.help && (
                <p className="sub" id={`${id}-help`}>
                  {f.help}
                </p>
              )}
              {err(`config.${f.name}`, id)}
            </div>
          );
        })}
      </div>
      <fieldset className="sources-kinds" aria-describedby={shown.kinds ? "target-kinds-error" : undefined}>
        <legend>Policy kinds</legend>
        {POLICY_KINDS.filter((k) => ADAPTER_KINDS[v.adapter].includes(k)).map((k) => (
          <label key={k} className="sources-check">
            <input
              type="checkbox"
              checked={v.kinds.includes(k)}
              onChange={(e) =>
                setV({ ...v, kinds: e.target.checked ? [...v.kinds, k] : v.kinds.filter((x) => x !== k) })
              }
            />{" "}
            {k}
          </label>
        ))}
        {err("kinds", "target-kinds")}
      </fieldset>
      <FormFooter
        noun="target"
        enabled={v.enabled}
        onEnabled={(enabled) => setV({ ...v, enabled })}
        pending={pending}
        editing={editing}
        onCancel={onCancel}
      />
    </form>
  );
}
