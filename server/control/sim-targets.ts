import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { POLICY_KINDS } from "../../lib/policies/policies";
import { storedTarget } from "../../db/store/control";
import type { Store } from "../../db/store/store";
import { fleetControlPath } from "../sim/fleet-names";
import { upsertTarget } from "./publish";
import { scopeLabel, scopeParts } from "../../lib/policy-scope";

// The policy targets `npm start` registers for the simulator it runs beside the dashboard: one, `sim`, for a single
// cluster; one per policy scope of a simulated fleet (`sim-<cluster>`, and `sim-<cluster>-<model>` for a model's own
// line: lib/policy-scope.ts).

/** `fleet`: the fleet's policy scopes (null: a single cluster). */
export type SimTargets = { url: string; token: string; fleet: readonly string[] | null };

/** A target id for a scope: lowercase, other characters as '-', at most 64 characters. */
export function simTargetId(scope: string): string {
  const { cluster, model } = scopeParts(scope);
  const raw = model === null ? `sim-${cluster}` : `sim-${cluster}-${model}`;
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .slice(0, 64);
}

export async function registerSimTargets(store: Store, sim: SimTargets, now = Date.now()): Promise<void> {
  const kinds = [...POLICY_KINDS];
  const single = await storedTarget(store, "sim");
  if (!sim.fleet) {
    await upsertTarget(
      store,
      {
        id: "sim",
        name: "Simulated cluster",
        // An operator may have moved it to another cluster's scope: keep theirs.
        cluster: single?.cluster ?? DEFAULT_CLUSTER,
        adapter: "sim",
        config: { url: sim.url, token: sim.token },
        kinds,
        enabled: true,
      },
      "system",
      now,
    );
    return;
  }
  for (const scope of sim.fleet) {
    const config = { url: `${sim.url}${fleetControlPath(scopeParts(scope).cluster)}`, token: sim.token };
    const name = `Simulated ${scopeLabel(scope)}`;
    const row = { id: simTargetId(scope), name, cluster: scope, adapter: "sim", config, kinds };
    await upsertTarget(store, { ...row, enabled: true }, "system", now);
  }
  // A single cluster's target from an earlier run would push to a root the fleet does not serve: paused, not lost.
  if (single?.enabled && single.adapter === "sim") {
    const { url } = JSON.parse(single.config) as { url: string };
    const row = { id: single.id, name: single.name, cluster: single.cluster, adapter: single.adapter };
    const paused = { ...row, config: { url, token: sim.token }, kinds: JSON.parse(single.kinds) as typeof kinds };
    await upsertTarget(store, { ...paused, enabled: false }, "system", now);
  }
}
