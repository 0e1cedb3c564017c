"use client";
import { KIND_FIELDS, KIND_LABELS, validateSource, type FieldErrors, type SourceFormValues } from "./source-form-model";
import type { SourceInput } from "@/lib/sources/config";
import { useCheckedForm } from "./use-checked-form";
import { SECRET_MARKER } from "@/lib/secret-fields";

/** Add or edit one configured source: per-kind fields, errors under each field (client and server). */
export function SourceForm({
  defaultValues,
  editing,
  serverErrors,
  pending,
  onSubmit,
  onCancel,
}: {
  defaultValues: SourceFormValues;
  editing: boolean;
  serverErrors: FieldErrors;
  pending: boolean;
  onSubmit: (input: SourceInput) => void;
  onCancel: () => void;
}) {
  const { values, setValues, shown, submit } = useCheckedForm(defaultValues, validateSource, onSubmit, serverErrors);
  const setField = (name: string, v: string) => setValues((s) => ({ ...s, fields: { ...s.fields, [name]: v } }));
  const title = `${editing ? "Edit" : "Add"} ${KIND_LABELS[values.kind]} source`;

  return (
    <form className="sources-form" onSubmit={submit} noValidate aria-label={title}>
      <h3>{title}</h3>
      {shown.form && (
        <p className="sources-error" role="alert">
          {shown.form}
        </p>
      )}
      <div className="sources-grid">
        <Field
          id="source-id"
          label="Source id"
          error={shown.id}
          help={editing ? "the id cannot change" : "lowercase letters, digits, '.', '_' or '-'"}
        >
          <input
            id="source-id"
            value={values.id}
            readOnly={editing}
            onChange={(e) => setValues({ ...values, id: e.target.value })}
            aria-invalid={Boolean(shown.id)}
            autoFocus={!editing}
          />
        </Field>
        <Field id="source-name" label="Source name" error={shown.name}>
          <input
            id="source-name"
            value={values.name}
            onChange={(e) => setValues({ ...values, name: e.target.value })}
            aria-invalid={Boolean(shown.name)}
            autoFocus={editing}
          />
        </Field>
        {KIND_FIELDS[values.kind].map((f) => {
          const id = `source-config-${f.name}`;
          const error = shown[`config.${f.name}`];
          const value = values.fields[f.name] ?? "";
          const common = { id, "aria-invalid": Boolean(error), "aria-describedby": f.help ? `${id}-help` : undefined };
          return (
            <Field
              key={f.name}
              id={id}
              label={f.optional ? `${f.label} (optional)` : f.label}
              error={error}
              help={f.help}
            >
              {f.type === "select" ? (
                <select {...common} value={value} onChange={(e) => setField(f.name, e.target.value)}>
                  {f.options!.map((o) => (
                    <option key={o}>{o}</option>
                  ))}
                </select>
              ) : f.type === "lines" ? (
                <textarea {...common} rows={2} value={value} onChange={(e) => setField(f.name, e.target.value)} />
              ) : (
                <input
                  {...common}
                  type={f.secret && value !== SECRET_MARKER ? "password" : "text"}
                  autoComplete={f.secret ? "off" : undefined}
                  inputMode={f.type === "number" ? "decimal" : undefined}
                  value={value}
                  onChange={(e) => setField(f.name, e.target.value)}
                />
              )}
            </Field>
          );
        })}
      </div>
      <FormFooter
        noun="source"
        enabled={values.enabled}
        onEnabled={(enabled) => setValues({ ...values, enabled })}
        pending={pending}
        editing={editing}
        onCancel={onCancel}
      />
    </form>
  );
}

function Field({
  id,
  label,
  error,
  help,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  help?: string;
  children: React.ReactNode;
}) {
  return (
    <div className="sources-field" data-invalid={error ? "true" : undefined}>
      <label htmlFor={id}>{label}</label>
      {children}
      {help && (
        <p className="sub" id={`${id}-help`}>
          {help}
        </p>
      )}
      {error && (
        <p className="sources-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The end of a source or target form: the enabled switch, save and cancel. */
export function FormFooter({
  noun,
  enabled,
  onEnabled,
  pending,
  editing,
  onCancel,
}: {
  noun: string;
  enabled: boolean;
  onEnabled: (enabled: boolean) => void;
  pending: boolean;
  editing: boolean;
  onCancel: () => void;
}) {
  return (
    <>
      <label className="sources-check">
        <input type="checkbox" checked={enabled} onChange={(e) => onEnabled(e.target.checked)} /> Enabled
      </label>
      <div className="sources-actions">
        <button className="button sources-primary" type="submit" disabled={pending}>
          {pending ? "Saving…" : editing ? `Save ${noun}` : `Add ${noun}`}
        </button>
        <button className="button" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}
