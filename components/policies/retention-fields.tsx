"use client";
import { useFieldArray, useFormContext } from "react-hook-form";
import { AGENT_ROLES, EVICT_ON, OFFLOAD_TIERS, SEGMENTS, type RetentionRule } from "@/lib/policies/policies";
import { NumberField, SelectField, TextField, CheckField } from "./fields";

const MAX_RULES = 64;

function newRule(taken: Set<string>, from?: RetentionRule): RetentionRule {
  const stem = from ? `${from.name}-copy` : "new-rule";
  let name = stem;
  for (let i = 2; taken.has(name); i++) name = `${stem}-${i}`;
  if (from) return { ...from, match: { ...from.match }, offload: { ...from.offload }, name };
  return {
    name,
    match: { segment: "any", session_type: null, agent_role: null },
    priority: 50,
    ttl_seconds: null,
    pin: false,
    evict_on: "never",
    offload: { to: null, ttl_seconds: null },
    prefetch_on_resume: false,
  };
}

/** Ordered retention rules (first match wins) and the default for blocks no rule matches. */
export function RetentionFields() {
  const { control, getValues } = useFormContext<{ rules: RetentionRule[] }>();
  const { fields, append, remove, move, insert } = useFieldArray({ control, name: "rules" });
  const names = () => new Set((getValues("rules") ?? []).map((r) => r.name));

  return (
    <>
      <fieldset className="policies-group">
        <legend>Rules</legend>
        <p className="policies-help">
          Checked in order; the first rule whose match fits a block decides its priority, TTL, pinning and eviction
          trigger.
        </p>
        {fields.length === 0 && (
          <p className="sub" role="status">
            No rules: every block takes the default below.
          </p>
        )}
        <ol className="policies-rules">
          {fields.map((field, i) => (
            <li key={field.id} className="policies-rule" aria-label={`Rule ${i + 1}`}>
              <div className="policies-rule-head">
                <strong>Rule {i + 1}</strong>
                <div className="policies-rule-actions">
                  <button
                    type="button"
                    className="button"
                    onClick={() => move(i, i - 1)}
                    disabled={i === 0}
                    aria-label={`Move rule ${i + 1} up`}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="button"
                    onClick={() => move(i, i + 1)}
                    disabled={i === fields.length - 1}
                    aria-label={`Move rule ${i + 1} down`}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="button"
                    onClick={() => insert(i + 1, newRule(names(), getValues(`rules.${i}`)))}
                    disabled={fields.length >= MAX_RULES}
                    aria-label={`Duplicate rule ${i + 1}`}
                  >
                    Duplicate
                  </button>
                  <button
                    type="button"
                    className="button"
                    onClick={() => remove(i)}
                    aria-label={`Remove rule ${i + 1}`}
                  >
                    Remove
                  </button>
                </div>
              </div>
              <div className="policies-grid">
                <TextField name={`rules.${i}.name`} label="Name" help="Letters, digits, '-', '_' or '.'; unique." />
                <SelectField
                  name={`rules.${i}.match.segment`}
                  label="Prefix segment"
                  options={SEGMENTS}
                  help="Which part of the prompt prefix the rule covers."
                />
                <TextField
                  name={`rules.${i}.match.session_type`}
                  label="Session type"
                  nullable
                  help="Empty matches every session type."
                />
                <SelectField
                  name={`rules.${i}.match.agent_role`}
                  label="Agent role"
                  options={AGENT_ROLES}
                  nullable="any role"
                />
                <NumberField
                  name={`rules.${i}.priority`}
                  label="Priority"
                  step="1"
                  help="0–100; lower is evicted first."
                />
                <NumberField
                  name={`rules.${i}.ttl_seconds`}
                  label="TTL"
                  unit="s"
                  step="1"
                  nullable
                  help="Empty: no TTL. At most 30 days."
                />
                <SelectField
                  name={`rules.${i}.evict_on`}
                  label="Evict on"
                  options={EVICT_ON}
                  help="Lifecycle event that frees these blocks."
                />
                <CheckField name={`rules.${i}.pin`} label="Pin (never evict under pressure)" />
                <SelectField
                  name={`rules.${i}.offload.to`}
                  label="Offload to"
                  options={OFFLOAD_TIERS}
                  nullable="nowhere (drop)"
                  help="Where these blocks go when evicted from GPU memory; the cluster must have that tier."
                />
                <NumberField
                  name={`rules.${i}.offload.ttl_seconds`}
                  label="Keep offloaded for"
                  unit="s"
                  step="1"
                  nullable
                  help="How long they stay on that tier. Empty: until it needs room. At most 7 days."
                />
                <CheckField
                  name={`rules.${i}.prefetch_on_resume`}
                  label="Prefetch on resume"
                  help="Bring a waiting agent's blocks back to GPU memory before its tool result arrives."
                />
              </div>
            </li>
          ))}
        </ol>
        <button
          type="button"
          className="button"
          onClick={() => append(newRule(names()))}
          disabled={fields.length >= MAX_RULES}
        >
          Add rule
        </button>
      </fieldset>
      <fieldset className="policies-group">
        <legend>Default</legend>
        <p className="policies-help">Applies to blocks no rule matches.</p>
        <div className="policies-grid">
          <NumberField name="default.priority" label="Priority" step="1" help="0–100." />
          <NumberField name="default.ttl_seconds" label="TTL" unit="s" step="1" nullable help="Empty: no TTL." />
          <SelectField name="default.evict_on" label="Evict on" options={EVICT_ON} />
        </div>
      </fieldset>
    </>
  );
}
