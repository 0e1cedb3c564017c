"use client";
import { useState, type FormEvent } from "react";
import type { FieldErrors } from "./source-form-model";

type Checked<I> = { ok: true; input: I } | { ok: false; errors: FieldErrors };

/**
 * Form state checked on submit with the same model the server uses: the values, the errors to show (ours over the
 * server's), and a submit handler that calls onSubmit only with a valid input.
 */
export function useCheckedForm<V, I>(
  defaultValues: V,
  check: (values: V) => Checked<I>,
  onSubmit: (input: I) => void,
  serverErrors: FieldErrors,
) {
  const [values, setValues] = useState(defaultValues);
  const [errors, setErrors] = useState<FieldErrors>({});
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = check(values);
    if (!r.ok) return setErrors(r.errors);
    setErrors({});
    onSubmit(r.input);
  };
  return { values, setValues, shown: { ...serverErrors, ...errors }, submit };
}
