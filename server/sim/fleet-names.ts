// The clusters of `--scenario fleet` (fleet.ts), apart from the simulation so that `npm start` and the dashboard can
// register one policy target per cluster without loading the simulator.
export const FLEET_CLUSTERS = ["production", "staging"] as const;

/** The path under a fleet simulator's control URL where `cluster`'s control API is. */
export function fleetControlPath(cluster: string): string {
  return `/clusters/${encodeURIComponent(cluster)}`;
}
