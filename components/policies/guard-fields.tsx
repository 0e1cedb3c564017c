"use client";
import type { ReactNode } from "react";
import type { GuardDraft, GuardField } from "./guard-form";

/** One limit: a checkbox that turns it on and its number, with the field's error below. */
function Limit({
  id,
  on,
  label,
  unit,
  value,
  error,
  onToggle,
  onValue,
  toggleLabel,
}: {
  id: string;
  on: boolean;
  label: string;
  unit: string;
  value: string;
  error?: string;
  onToggle: (on: boolean) => void;
  onValue: (v: string) => void;
  toggleLabel: string;
}) {
  return (
    <div className="policies-field" data-invalid={error ? "true" : undefined}>
      <label>
        <input type="checkbox" checked={on} onChange={(e) => onToggle(e.target.checked)} /> {toggleLabel}
      </label>
      <label htmlFor={id}>
        {label} ({unit})
      </label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        disabled={!on}
        value={value}
        onChange={(e) => onValue(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error && <FieldError id={`${id}-error`}>{error}</FieldError>}
    </div>
  );
}

function FieldError({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p className="policies-error" id={id} role="alert">
      {children}
    </p>
  );
}

/**
 * The publish step's optional guard: roll the version back by itself when TTFT p95 rises or the hit rate falls more
 * than allowed within N minutes of a target applying it. Presentational: the editor owns the draft and its checks.
 */
export function GuardFields({
  idPrefix,
  draft,
  errors,
  onChange,
  available,
}: {
  idPrefix: string;
  draft: GuardDraft;
  errors: Partial<Record<GuardField, string>>;
  onChange: (d: GuardDraft) => void;
  /** False for a first version: there is nothing to roll back to. */
  available: boolean;
}) {
  const set = (o: Partial<GuardDraft>) => onChange({ ...draft, ...o });
  if (!available)
    return (
      <p className="sub">A guard rolls back to the previous version: it can be added from the second version on.</p>
    );
  return (
    <fieldset className="policies-group" aria-label="Guard">
      <legend>Guard (optional)</legend>
      <label>
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> Add a
        guard: roll back by itself if this version makes things worse
      </label>
      {draft.enabled && (
        <>
          <p className="policies-help">
            Compares the minutes after a target applies it with as many minutes before; with too little traffic the
            guard says so and does not roll back.
          </p>
          <div className="policies-grid">
            <Limit
              id={`${idPrefix}-guard-ttft`}
              on={draft.ttftOn}
              toggleLabel="Check TTFT p95"
              label="TTFT p95 may not rise more than"
              unit="%"
              value={draft.ttft}
              error={errors.ttftP95RisePct}
              onToggle={(ttftOn) => set({ ttftOn })}
              onValue={(ttft) => set({ ttft })}
            />
            <Limit
              id={`${idPrefix}-guard-hit`}
              on={draft.hitOn}
              toggleLabel="Check the hit rate"
              label="Hit rate may not fall more than"
              unit="points"
              value={draft.hit}
              error={errors.hitRateDropPoints}
              onToggle={(hitOn) => set({ hitOn })}
              onValue={(hit) => set({ hit })}
            />
            <div className="policies-field" data-invalid={errors.windowMinutes ? "true" : undefined}>
              <label htmlFor={`${idPrefix}-guard-window`}>Within (minutes after it is applied)</label>
              <input
                id={`${idPrefix}-guard-window`}
                type="number"
                inputMode="numeric"
                min={1}
                max={120}
                value={draft.window}
                onChange={(e) => set({ window: e.target.value })}
                aria-invalid={errors.windowMinutes ? true : undefined}
                aria-describedby={errors.windowMinutes ? `${idPrefix}-guard-window-error` : undefined}
              />
              {errors.windowMinutes && (
                <FieldError id={`${idPrefix}-guard-window-error`}>{errors.windowMinutes}</FieldError>
              )}
            </div>
          </div>
        </>
      )}
    </fieldset>
  );
}
