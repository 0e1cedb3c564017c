// The clusters of `--scenario fleet` (fleet.ts), apart from the simulation so that `npm start` and the dashboard can
// register one policy target per cluster without loading the simulator.
export const FLEET_CLUSTERS = ["production", "staging"] as const;

/** The second model production serves beside the scenarios' default (fleet.ts). */
export const FLEET_SECOND_MODEL = "gpt-oss-120b";

/**
 * The policy scopes `npm start` registers a target for (lib/policy-scope.ts): each cluster, and each model of the
 * cluster serving two (fleet.test.ts checks this against the fleet).
 */
export const FLEET_SCOPES = [
  "production",
  "production@gpt-oss-120b",
  "production@qwen3-coder-480b-a35b",
  "staging",
] as const;

/** The path under a fleet simulator's control URL where `cluster`'s control API is. */
export function fleetControlPath(cluster: string): string {
  return `/clusters/${encodeURIComponent(cluster)}`;
}
