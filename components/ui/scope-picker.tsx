"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { Scope } from "@/lib/scope";
import type { ScopeChange } from "./use-scope";

/**
 * Cluster and model menus ("All clusters" is the fleet view). The model menu lists the chosen cluster's models, or
 * every model; a scope the store does not know yet (a link from elsewhere) stays selectable.
 */
export function ScopePicker({ value, onChange }: { value: Scope; onChange: (change: ScopeChange) => void }) {
  const trpc = useTRPC();
  const scopes = useQuery(trpc.overview.scopes.queryOptions());
  const clusters = scopes.data?.clusters ?? [];
  const names = clusters.map((c) => c.name);
  if (value.cluster && !names.includes(value.cluster)) names.push(value.cluster);
  const models = [
    ...new Set(clusters.filter((c) => !value.cluster || c.name === value.cluster).flatMap((c) => c.models)),
  ].sort();
  if (value.model && !models.includes(value.model)) models.push(value.model);
  return (
    <div className="policies-scope scope-picker" data-testid="scope-picker">
      <label htmlFor="scope-cluster">Cluster</label>
      <select
        id="scope-cluster"
        value={value.cluster ?? ""}
        onChange={(e) => {
          const cluster = e.target.value || undefined;
          const served = clusters.find((c) => c.name === cluster)?.models;
          // A model the new cluster does not serve would show nothing: let it go.
          const keep = !value.model || !served || served.includes(value.model);
          onChange(keep ? { cluster } : { cluster, model: undefined });
        }}
      >
        <option value="">All clusters</option>
        {names.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
      <ModelMenu value={value} models={models} onChange={onChange} />
    </div>
  );
}

function ModelMenu({
  value,
  models,
  onChange,
}: {
  value: Scope;
  models: string[];
  onChange: (change: ScopeChange) => void;
}) {
  return (
    <>
      <label htmlFor="scope-model">Model</label>
      <select
        id="scope-model"
        value={value.model ?? ""}
        onChange={(e) => {
          onChange({ model: e.target.value || undefined });
        }}
      >
        <option value="">All models</option>
        {models.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
    </>
  );
}
