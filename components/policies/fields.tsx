"use client";
import { createContext, useContext, type ReactNode } from "react";
import { get, useFormContext, useFormState } from "react-hook-form";

/** Who edits: the name recorded as author, and whether the role may publish. */
export type Operator = { name: string; canEdit: boolean };

/** A rejection reason from a target, shown under the field it names. */
export type TargetReason = { path: string; message: string; target: string };

/** Per form: the id prefix (one form per kind on the page) and the targets' reasons by field path. */
export const FieldScope = createContext<{ idPrefix: string; reasons: Map<string, TargetReason[]> }>({
  idPrefix: "policy",
  reasons: new Map(),
});

type Common = { name: string; label: string; help?: ReactNode };

function useField(name: string) {
  const { idPrefix, reasons } = useContext(FieldScope);
  const { register } = useFormContext();
  const { errors } = useFormState({ name });
  const error = get(errors, name) as { message?: string } | undefined;
  const id = `${idPrefix}-${name.replaceAll(".", "-")}`;
  return { id, register, error: error?.message, reasons: reasons.get(name) ?? [] };
}

function Shell({
  id,
  label,
  help,
  error,
  reasons,
  children,
  inline,
}: {
  id: string;
  label: string;
  help?: ReactNode;
  error?: string;
  reasons: TargetReason[];
  children: ReactNode;
  inline?: boolean;
}) {
  return (
    <div
      className="policies-field"
      data-invalid={error || reasons.length ? "true" : undefined}
      data-inline={inline ? "true" : undefined}
    >
      {!inline && <label htmlFor={id}>{label}</label>}
      {children}
      {help && (
        <p className="policies-help" id={`${id}-help`}>
          {help}
        </p>
      )}
      {error && (
        <p className="policies-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
      {reasons.map((r, i) => (
        <p key={i} className="policies-error" data-testid={`target-reason-${r.path}`}>
          Rejected by {r.target}: {r.message}
        </p>
      ))}
    </div>
  );
}

function describedBy(id: string, help: unknown, error: unknown): string | undefined {
  return [help ? `${id}-help` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

/** A number that stays a number in the form; empty is null when `nullable`, else an error. */
export function NumberField({
  name,
  label,
  help,
  nullable,
  step = "any",
  unit,
}: Common & { nullable?: boolean; step?: string; unit?: string }) {
  const f = useField(name);
  return (
    <Shell id={f.id} label={unit ? `${label} (${unit})` : label} help={help} error={f.error} reasons={f.reasons}>
      <input
        id={f.id}
        type="number"
        inputMode="decimal"
        step={step}
        placeholder={nullable ? "none" : undefined}
        aria-invalid={f.error ? true : undefined}
        aria-describedby={describedBy(f.id, help, f.error)}
        {...f.register(name, {
          setValueAs: (v: unknown) => (v === "" || v === null ? (nullable ? null : Number.NaN) : Number(v)),
        })}
      />
    </Shell>
  );
}

/** A choice from a fixed list; the empty option stands for null when `nullable`. */
export function SelectField({
  name,
  label,
  help,
  options,
  nullable,
}: Common & { options: readonly string[]; nullable?: string }) {
  const f = useField(name);
  return (
    <Shell id={f.id} label={label} help={help} error={f.error} reasons={f.reasons}>
      <select
        id={f.id}
        aria-invalid={f.error ? true : undefined}
        aria-describedby={describedBy(f.id, help, f.error)}
        {...f.register(name, { setValueAs: (v: unknown) => (v === "" && nullable ? null : v) })}
      >
        {nullable && <option value="">{nullable}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </Shell>
  );
}

/** Free text; empty is null when `nullable`. */
export function TextField({ name, label, help, nullable }: Common & { nullable?: boolean }) {
  const f = useField(name);
  return (
    <Shell id={f.id} label={label} help={help} error={f.error} reasons={f.reasons}>
      <input
        id={f.id}
        type="text"
        autoComplete="off"
        placeholder={nullable ? "any" : undefined}
        aria-invalid={f.error ? true : undefined}
        aria-describedby={describedBy(f.id, help, f.error)}
        {...f.register(name, { setValueAs: (v: unknown) => (nullable && (v === "" || v === null) ? null : v) })}
      />
    </Shell>
  );
}

/** A yes/no switch. */
export function CheckField({ name, label, help }: Common) {
  const f = useField(name);
  return (
    <Shell id={f.id} label={label} help={help} error={f.error} reasons={f.reasons} inline>
      <label className="check" htmlFor={f.id}>
        <input id={f.id} type="checkbox" aria-describedby={describedBy(f.id, help, f.error)} {...f.register(name)} />{" "}
        {label}
      </label>
    </Shell>
  );
}
