"use client";
import type { PolicyKind } from "@/lib/policies/policies";
import { CheckField, NumberField, SelectField } from "./fields";
import { RetentionFields } from "./retention-fields";

function ScalingRole({
  role,
  title,
  metric,
}: {
  role: "prefill" | "decode" | "aggregated";
  title: string;
  metric: "queue" | "kv";
}) {
  const up = metric === "queue" ? "queue_scale_up" : "kv_scale_up";
  const down = metric === "queue" ? "queue_scale_down" : "kv_scale_down";
  const what = metric === "queue" ? "Prefill queue" : "KV utilization";
  const range = metric === "queue" ? "0–1000" : "0–1";
  return (
    <fieldset className="policies-group">
      <legend>{title}</legend>
      <div className="policies-grid" data-cols="4">
        <NumberField name={`${role}.min_replicas`} label="Min replicas" step="1" help="At most max replicas." />
        <NumberField name={`${role}.max_replicas`} label="Max replicas" step="1" help="At most the GPU budget." />
        <NumberField name={`${role}.${up}`} label={`${what} scale-up`} help={`Add a replica above this (${range}).`} />
        <NumberField
          name={`${role}.${down}`}
          label={`${what} scale-down`}
          help="Remove a replica below this; must be below scale-up."
        />
      </div>
    </fieldset>
  );
}

function AutoscalingFields() {
  return (
    <>
      <fieldset className="policies-group">
        <legend>Planner</legend>
        <div className="policies-grid">
          <NumberField
            name="adjustment_interval_seconds"
            label="Adjustment interval"
            unit="s"
            step="1"
            help="How often the planner samples and decides (1–3600)."
          />
          <NumberField
            name="grace_period_seconds"
            label="Grace period"
            unit="s"
            step="1"
            help="Wait after a change before the next one."
          />
          <NumberField
            name="max_gpu_budget"
            label="GPU budget"
            step="1"
            help="Replicas per role and their minimums together stay within it."
          />
        </div>
      </fieldset>
      <ScalingRole role="prefill" title="Prefill" metric="queue" />
      <ScalingRole role="decode" title="Decode" metric="kv" />
      <ScalingRole role="aggregated" title="Aggregated" metric="kv" />
      <fieldset className="policies-group">
        <legend>SLA targets</legend>
        <div className="policies-grid">
          <NumberField name="sla.ttft_ms" label="TTFT target" unit="ms" help="Time to first token." />
          <NumberField name="sla.itl_ms" label="ITL target" unit="ms" help="Inter-token latency." />
        </div>
      </fieldset>
    </>
  );
}

function RoutingFields() {
  return (
    <>
      <fieldset className="policies-group">
        <legend>Worker selection</legend>
        <p className="policies-help">
          cost = prefill load scale × max(prefill blocks − credit × overlap, 0) + decode blocks; lowest wins.
        </p>
        <div className="policies-grid">
          <NumberField name="overlap_credit" label="Overlap credit" help="Weight of cached prefix blocks (0–100)." />
          <NumberField
            name="prefill_load_scale"
            label="Prefill load scale"
            help="Weight of prefill work against decode load (0–100)."
          />
          <NumberField name="temperature" label="Temperature" help="0 picks the cheapest; above 0 samples (softmax)." />
        </div>
      </fieldset>
      <fieldset className="policies-group">
        <legend>Busy thresholds</legend>
        <p className="policies-help">A worker above any of these is skipped. Empty: no threshold.</p>
        <div className="policies-grid">
          <NumberField
            name="busy.active_decode_blocks_threshold"
            label="Active decode blocks"
            nullable
            help="Fraction of KV blocks in use (0–1)."
          />
          <NumberField
            name="busy.active_prefill_tokens_threshold"
            label="Active prefill tokens"
            step="1"
            nullable
            help="Tokens waiting for prefill."
          />
          <NumberField
            name="busy.active_prefill_tokens_threshold_frac"
            label="Active prefill tokens (fraction)"
            nullable
            help="Relative to the worker's batch size."
          />
        </div>
      </fieldset>
    </>
  );
}

function FrontendFields() {
  return (
    <>
      <fieldset className="policies-group">
        <legend>Prompt prefix</legend>
        <CheckField
          name="strip_anthropic_preamble"
          label="Strip the billing preamble"
          help="The harness puts a per-session billing header at the top of the prompt, which breaks prefix sharing across sessions."
        />
      </fieldset>
      <fieldset className="policies-group">
        <legend>Tool output budget</legend>
        <div className="policies-grid">
          <SelectField
            name="tool_output_budget.unit"
            label="Unit"
            options={["tokens", "bytes"]}
            help="A 10,000-byte budget keeps far less code than 10,000 tokens."
          />
          <NumberField
            name="tool_output_budget.limit"
            label="Limit"
            step="1"
            help="Tool output beyond this is truncated."
          />
        </div>
      </fieldset>
      <fieldset className="policies-group">
        <legend>KV prefetch</legend>
        <p className="policies-help">
          For retention rules with prefetch on resume: when to start bringing offloaded blocks back.
        </p>
        <div className="policies-grid">
          <CheckField name="prefetch.enabled" label="Prefetch before tool results" />
          <NumberField
            name="prefetch.lead_ms"
            label="Lead time"
            unit="ms"
            step="1"
            help="Start this long before a tool call's predicted end (0–60000)."
          />
        </div>
      </fieldset>
    </>
  );
}

/** The form fields of one policy kind. */
export function KindFields({ kind }: { kind: PolicyKind }) {
  if (kind === "retention") return <RetentionFields />;
  if (kind === "autoscaling") return <AutoscalingFields />;
  if (kind === "routing") return <RoutingFields />;
  return <FrontendFields />;
}
